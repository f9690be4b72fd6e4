// Real things for the tests: the Go backend built from this repository, the
// Java fixture compiled with javac -g, HotSpot VMs started with a JDWP agent.

import { ChildProcess, execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The extension's folder (tests run from out/tsc/test/<level>/). */
export const extRoot = path.resolve(__dirname, '..', '..', '..', '..');
export const repoRoot = path.resolve(extRoot, '..');
export const javaSrcRoot = path.join(extRoot, 'test', 'fixtures', 'java');
export const sampleJava = path.join(javaSrcRoot, 'fixture', 'Sample.java');
/** The Threads panel's debuggee: a sleeping, a waiting and a busy thread. */
export const statesJava = path.join(javaSrcRoot, 'fixture', 'States.java');
/** The slow-toString pool of issue 35 (fixture.SlowPool). */
export const slowPoolJava = path.join(javaSrcRoot, 'fixture', 'SlowPool.java');
/** The Virtual Threads views' debuggee (fixture.VDemo, JDK 21+). */
export const vdemoJava = path.join(javaSrcRoot, 'fixture', 'VDemo.java');
/** The HPROF editor's big dump: a few million objects shaped like a server's heap (fixture.BigHeap N). */
export const bigHeapJava = path.join(javaSrcRoot, 'fixture', 'BigHeap.java');
/** The source of the frames the simulated VM's allocation records name (com.example.simvm.Worker). */
export const workerJava = path.join(javaSrcRoot, 'com', 'example', 'simvm', 'Worker.java');

let tmpRoot: string | undefined;

/** A temporary directory for this test process, removed at exit. */
export function tmpDir(): string {
  if (!tmpRoot) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ddmbridge-ext-test-'));
    tmpRoot = dir;
    if (process.env.KEEP_TEST_TMP === '1') {
      process.stderr.write(`# test files kept in ${dir}\n`);
    } else {
      // Best effort: a child still shutting down (code-server) may write into
      // it meanwhile; a leftover temporary directory must not fail the run.
      process.on('exit', () => {
        try {
          fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
        } catch (e) {
          process.stderr.write(`# could not remove ${dir}: ${String(e)}\n`);
        }
      });
    }
  }
  return tmpRoot;
}

export function findGo(): string {
  for (const c of [process.env.GO, '/usr/local/go/bin/go'].filter((c): c is string => !!c)) {
    if (fs.existsSync(c)) {
      return c;
    }
  }
  return 'go';
}

let built: Promise<string> | undefined;

/**
 * Builds ./cmd/ddmbridge into the temp directory once per test process, or
 * uses DDMBRIDGE_BIN when set.
 */
export function buildBackend(): Promise<string> {
  if (process.env.DDMBRIDGE_BIN) {
    return Promise.resolve(path.resolve(process.env.DDMBRIDGE_BIN));
  }
  built ??= (async () => {
    const out = path.join(tmpDir(), 'ddmbridge');
    try {
      await run(findGo(), ['build', '-o', out, './cmd/ddmbridge'], { cwd: repoRoot, maxBuffer: 16 << 20 });
    } catch (e) {
      const err = e as { stderr?: string; message: string };
      throw new Error(`go build ./cmd/ddmbridge failed: ${err.stderr || err.message}`);
    }
    return out;
  })();
  return built;
}

let compiled: Promise<string> | undefined;

/** Compiles the Java fixture with debug info; resolves to the classes directory. */
export function compileFixture(): Promise<string> {
  compiled ??= (async () => {
    const out = path.join(tmpDir(), 'classes');
    fs.mkdirSync(out, { recursive: true });
    await run('javac', ['-g', '-d', out, sampleJava]);
    return out;
  })();
  return compiled;
}

/** The Kotlin fixture compiled by the real Kotlin 2 compiler (jdwp/lang/kotlin/kotlintest/kotlinfixture). */
export interface KotlinFixture {
  /** app.MainKt, the file facade of app/Main.kt. */
  mainClass: string;
  classes: string;
  /** The source root holding app/*.kt as compiled. */
  sources: string;
  /** The classes, kotlin-stdlib and kotlinx-coroutines-core. */
  classPath: string[];
}

let kotlinCompiled: Promise<KotlinFixture> | undefined;

/**
 * Compiles the Go tests' Kotlin fixture with the cached Kotlin compiler, the
 * way the Go tests do (fetched with mvn into ~/.cache/ddmbridge-kotlin the
 * first time, compiles cached by content), through `go run
 * ./jdwp/lang/kotlin/kotlintest/kotlinfixture`. Cold (fetch and compile) it
 * can take minutes; warm about a second.
 */
export function compileKotlinFixture(): Promise<KotlinFixture> {
  kotlinCompiled ??= (async () => {
    let out: string;
    try {
      out = (await run(findGo(), ['run', './jdwp/lang/kotlin/kotlintest/kotlinfixture', '--lambdas', 'indy'], { cwd: repoRoot, timeout: 20 * 60_000, maxBuffer: 16 << 20 }))
        .stdout;
    } catch (e) {
      const err = e as { stderr?: string; message: string };
      throw new Error(`compiling the Kotlin fixture failed: ${err.stderr || err.message}`);
    }
    return JSON.parse(out) as KotlinFixture;
  })();
  return kotlinCompiled;
}

/** The 1-based line of a Kotlin fixture file marked `// @marker` (kotlintest's markers). */
export function kotlinLine(file: string, marker: string): number {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const found = lines.flatMap((l, i) => (l.trimEnd().endsWith(`// @${marker}`) ? [i + 1] : []));
  if (found.length !== 1) {
    throw new Error(`${file}: ${found.length} lines marked @${marker}, want 1`);
  }
  return found[0];
}

/** Compiles a States.java (the fixture, or an edited copy) into dir (a new one by default). */
export async function compileStates(src = statesJava, dir?: string): Promise<string> {
  const out = dir ?? path.join(tmpDir(), 'states-classes');
  fs.mkdirSync(out, { recursive: true });
  await run('javac', ['-g', '-d', out, src], { timeout: 120_000 });
  return out;
}

/** The 1-based line of the Java fixture that carries `// TAG:name`. */
export function lineOf(tag: string, file = sampleJava): number {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes(`// TAG:${tag}`));
  if (i < 0) {
    throw new Error(`no TAG:${tag} in ${file}`);
  }
  return i + 1;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface Jvm {
  port: number;
  proc: ChildProcess;
  /** Everything the program printed so far (stdout and stderr). */
  output(): string;
  exited: Promise<number | null>;
  /** Resolves when the output matches. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<void>;
  kill(): void;
}

/** Starts fixture.Sample with a JDWP agent listening on a free loopback port. */
export async function startJvm(opts: { suspend: boolean; args?: string[]; port?: number }): Promise<Jvm> {
  const classes = await compileFixture();
  const port = opts.port ?? (await freePort());
  const agent = `-agentlib:jdwp=transport=dt_socket,server=y,suspend=${opts.suspend ? 'y' : 'n'},address=127.0.0.1:${port}`;
  const proc = spawn('java', ['-Xshare:auto', agent, '-cp', classes, 'fixture.Sample', ...(opts.args ?? [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters: (() => void)[] = [];
  const onData = (d: Buffer): void => {
    out += d.toString();
    waiters.forEach((w) => w());
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const waitFor = (re: RegExp, timeoutMs = 15000): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (re.test(out)) {
          clearTimeout(t);
          resolve();
        }
      };
      const t = setTimeout(() => reject(new Error(`timed out waiting for ${re} in JVM output:\n${out}`)), timeoutMs);
      waiters.push(check);
      check();
    });
  const jvm: Jvm = {
    port,
    proc,
    output: () => out,
    exited,
    waitFor,
    kill: () => {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGKILL');
      }
    },
  };
  await waitFor(/Listening for transport dt_socket at address/);
  return jvm;
}

/** Polls cond until it is truthy or the time is up. */
export async function eventually<T>(cond: () => Promise<T | undefined> | T | undefined, timeoutMs = 10000, what = 'condition'): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await cond();
      if (v) {
        return v;
      }
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) {
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
