import com.android.ddmlib.HeapSegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.TreeSet;

/**
 * The reference side of `ddmbridge bench heap --ddmlib`: ddmlib's own HPSG parser
 * (com.android.ddmlib.HeapSegment, Debian libandroid-ddms-java) decodes the same
 * capture file (chunks back to back: u4 type, u4 length, data) into segments kept
 * sorted by address, as ddmlib's ClientData does, and walks every element for
 * per-kind totals. Two untimed warm-up passes (the JIT compiles the parser),
 * then best of N runs; one JSON line on stdout like ddmbridge's, and the best
 * run's CPU time of the parsing thread on stderr ("cpu-seconds S").
 */
public class DdmlibHpsgBench {
    static final int HPSG = 0x48505347;
    static final int WARMUP = 2;

    public static void main(String[] args) throws Exception {
        byte[] file = Files.readAllBytes(Paths.get(args[0]));
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        double best = Double.MAX_VALUE, bestCpu = Double.MAX_VALUE;
        long items = 0, runBytes = 0;
        // Untimed passes first, so the timed ones run JIT-compiled code.
        for (int r = -WARMUP; r < runs; r++) {
            long t0 = System.nanoTime(), c0 = mx.getCurrentThreadCpuTime();
            ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.BIG_ENDIAN);
            TreeSet<HeapSegment> segments = new TreeSet<>();
            long[] byKind = new long[8];
            long free = 0, bytes = 0, units = 0;
            HeapSegment.HeapSegmentElement e = new HeapSegment.HeapSegmentElement();
            while (b.remaining() >= 8) {
                int type = b.getInt(), len = b.getInt();
                ByteBuffer data = b.slice();
                data.limit(len);
                data.order(ByteOrder.BIG_ENDIAN);
                b.position(b.position() + len);
                if (type != HPSG) continue;
                int unitSize = data.get(4) & 0xff;
                HeapSegment s = new HeapSegment(data);
                segments.add(s);
                bytes += len - 17;
                s.rewindElements();
                for (HeapSegment.HeapSegmentElement x = s.getNextElement(e); x != null; x = s.getNextElement(e)) {
                    long n = x.getLength();
                    units += n / unitSize;
                    if (x.getSolidity() == HeapSegment.HeapSegmentElement.SOLIDITY_FREE) free += n;
                    else byKind[x.getKind() & 7] += n;
                }
            }
            double sec = (System.nanoTime() - t0) / 1e9;
            double cpu = (mx.getCurrentThreadCpuTime() - c0) / 1e9;
            if (segments.isEmpty() || units == 0) throw new IllegalStateException("no HPSG data");
            if (r < 0) continue;
            if (sec < best) best = sec;
            if (cpu < bestCpu) bestCpu = cpu;
            items = units;
            runBytes = bytes;
        }
        // The parsing thread's CPU time, for a comparison less at the mercy
        // of other processes on a shared machine.
        System.err.printf("cpu-seconds %.6f%n", bestCpu);
        System.out.printf("{\"client\":\"ddmlib\",\"workload\":\"hpsg\",\"items\":%d,\"bytes\":%d,\"seconds\":%.4f}%n", items, runBytes, best);
    }
}
