// The HPROF editor's requests to the backend on one dump, and which of them
// the user's Cancel reached. hprof/cancel stops all the work on the dump (the
// streamed pass, the parse, the dominator tree), and every request waiting
// for it fails with "context canceled": those are shown as stopped, with a
// way to start again, not as errors. A request is reached when it is in
// flight as the user cancels, or starts before the backend has answered the
// cancel (it may have joined the work being stopped); it stays so whatever
// else the webview asks meanwhile. A request started after is the user's
// starting again: its failure is an error like any other. No vscode: the
// editor (views/hprofEditor.ts) and the unit tests share it.

/** One request, as HprofRequests tracks it. */
export interface HprofRequest {
  /** The user's Cancel reached it. */
  readonly cancelled: boolean;
}

export class HprofRequests {
  private readonly inFlight = new Set<{ cancelled: boolean }>();
  /** Cancels sent to the backend and not answered yet. */
  private cancelling = 0;

  /** How many requests are in flight. */
  get pending(): number {
    return this.inFlight.size;
  }

  /** A request starts. */
  start(): HprofRequest {
    const r = { cancelled: this.cancelling > 0 };
    this.inFlight.add(r);
    return r;
  }

  /** A request has its answer (or its error). */
  end(r: HprofRequest): void {
    this.inFlight.delete(r as { cancelled: boolean });
  }

  /**
   * The user cancels: the requests in flight are reached, and those started
   * until answered is called (when the backend has answered hprof/cancel,
   * or failed to).
   */
  cancel(): () => void {
    this.cancelling++;
    for (const r of this.inFlight) {
      r.cancelled = true;
    }
    let done = false;
    return () => {
      if (!done) {
        done = true;
        this.cancelling--;
      }
    };
  }

  /** Whether r failed with error because the user cancelled it. */
  stopped(r: HprofRequest, error: string): boolean {
    return r.cancelled && /context canceled/.test(error);
  }
}
