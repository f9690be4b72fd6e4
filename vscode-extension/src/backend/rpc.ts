// The JSON-RPC client of one `ddmbridge serve --stdio` process: language-server
// framing (Content-Length) through vscode-jsonrpc, typed calls for the control
// API, notifications as events, restart with back-off when the process dies.
// No vscode: the extension wraps it, and the protocol tests drive it directly.

import { ChildProcess, spawn } from 'child_process';
import { EventEmitter } from 'events';
import * as rpc from 'vscode-jsonrpc/node';

export interface BackendOptions {
  binary: string;
  /** Extra arguments after `serve --stdio`. */
  args?: string[];
  logLevel?: string;
  trace?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Default time limit of a request, ms. */
  requestTimeout?: number;
  /** Restart when the process dies (default true). */
  restart?: boolean;
}

/** JSON-RPC "method not found": the backend is older than the call. */
export const MethodNotFound = -32601;

export class BackendError extends Error {
  constructor(
    message: string,
    readonly code?: number,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'BackendError';
  }
}

export function isMethodNotFound(e: unknown): boolean {
  return (
    (e instanceof BackendError || e instanceof rpc.ResponseError) &&
    (e as { code?: number }).code === MethodNotFound
  );
}

export type BackendState = 'stopped' | 'starting' | 'running' | 'restarting' | 'failed';

/** The notifications the backend sends (docs/rpc.md). */
export const notifications = ['vms/added', 'vms/removed', 'vms/changed', 'vm/threads', 'vm/heap'] as const;
export type NotificationName = (typeof notifications)[number];

/**
 * Events: 'state' (BackendState, detail?), 'notification' (method, params),
 * 'log' (line), and one event per notification method.
 */
export class Backend extends EventEmitter {
  private proc?: ChildProcess;
  private conn?: rpc.MessageConnection;
  private ready?: Promise<void>;
  private _state: BackendState = 'stopped';
  private stopping = false;
  private failures: number[] = [];
  private restartTimer?: NodeJS.Timeout;
  private stderrTail: string[] = [];
  private generation = 0;
  private requestTimeout?: number;
  private autoRestart = true;

  /** Options, or a function that computes them at each (re)start (and may throw, e.g. no binary). */
  constructor(private opts: BackendOptions | (() => BackendOptions)) {
    super();
  }

  get state(): BackendState {
    return this._state;
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  /** Replaces the options; takes effect at the next (re)start. */
  configure(opts: BackendOptions | (() => BackendOptions)): void {
    this.opts = opts;
  }

  private setState(s: BackendState, detail?: string): void {
    this._state = s;
    this.emit('state', s, detail);
  }

  /** Starts the process if needed and resolves when it answers. */
  start(): Promise<void> {
    if (this.ready && (this._state === 'running' || this._state === 'starting')) {
      return this.ready;
    }
    this.stopping = false;
    clearTimeout(this.restartTimer);
    this.ready = this.spawnOnce();
    return this.ready;
  }

  private spawnOnce(): Promise<void> {
    const gen = ++this.generation;
    let opts: BackendOptions;
    try {
      opts = typeof this.opts === 'function' ? this.opts() : this.opts;
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      this.setState('failed', msg);
      return Promise.reject(e);
    }
    this.requestTimeout = opts.requestTimeout;
    this.autoRestart = opts.restart !== false;
    this.setState('starting');
    this.stderrTail = [];
    const args = ['serve', '--stdio', ...(opts.args ?? [])];
    if (opts.logLevel) {
      args.push('--log-level', opts.logLevel);
    }
    if (opts.trace) {
      args.push('--trace', opts.trace);
    }
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const fail = (msg: string): void => {
        if (!settled) {
          settled = true;
          reject(new BackendError(msg));
        }
      };
      let proc: ChildProcess;
      try {
        proc = spawn(opts.binary, args, {
          cwd: opts.cwd,
          env: opts.env ?? process.env,
          stdio: ['pipe', 'pipe', 'pipe'],
        });
      } catch (e) {
        this.setState('failed', String(e));
        fail(`cannot start ${opts.binary}: ${String(e)}`);
        return;
      }
      this.proc = proc;
      let buf = '';
      proc.stderr?.setEncoding('utf8');
      proc.stderr?.on('data', (d: string) => {
        buf += d;
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          this.stderrTail = [...this.stderrTail, line].slice(-20);
          this.emit('log', line);
        }
      });
      proc.on('error', (err: NodeJS.ErrnoException) => {
        const msg =
          err.code === 'ENOENT'
            ? `the ddmbridge binary ${opts.binary} was not found`
            : err.code === 'EACCES'
              ? `the ddmbridge binary ${opts.binary} is not executable`
              : `cannot start ${opts.binary}: ${err.message}`;
        this.emit('log', msg);
        if (gen === this.generation) {
          this.setState('failed', msg);
        }
        fail(msg);
      });
      proc.on('exit', (code, signal) => {
        const why = signal ? `killed by ${signal}` : `exited with code ${code}`;
        const tail = this.stderrTail.slice(-5).join('\n');
        this.conn?.dispose();
        this.conn = undefined;
        fail(`ddmbridge serve ${why}${tail ? `:\n${tail}` : ''}`);
        if (gen !== this.generation || this.stopping) {
          return;
        }
        this.onDied(why, tail);
      });
      if (proc.pid === undefined) {
        return; // spawn failed; the 'error' handler reports why
      }
      const conn = rpc.createMessageConnection(
        new rpc.StreamMessageReader(proc.stdout!),
        new rpc.StreamMessageWriter(proc.stdin!),
      );
      conn.onNotification((method: string, params: unknown) => {
        this.emit('notification', method, params);
        this.emit(method, params);
      });
      conn.onError(([err]) => this.emit('log', `rpc: ${err.message}`));
      conn.listen();
      this.conn = conn;
      // The process is up once it answers anything — even "method not found".
      conn
        .sendRequest('vms/list', {})
        .then(
          () => undefined,
          (e: unknown) => {
            if (!(e instanceof rpc.ResponseError)) {
              throw e;
            }
          },
        )
        .then(
          () => {
            if (!settled && gen === this.generation) {
              settled = true;
              this.setState('running');
              resolve();
            }
          },
          (e: unknown) => fail(`ddmbridge serve did not answer: ${String(e)}`),
        );
    });
  }

  private onDied(why: string, tail: string): void {
    const now = Date.now();
    this.failures = [...this.failures.filter((t) => now - t < 60_000), now];
    if (!this.autoRestart) {
      this.setState('failed', `ddmbridge serve ${why}`);
      return;
    }
    if (this.failures.length > 5) {
      this.setState('failed', `ddmbridge serve ${why} ${this.failures.length} times in a minute; not restarting.\n${tail}`);
      return;
    }
    const delay = Math.min(30_000, 500 * 2 ** (this.failures.length - 1));
    this.setState('restarting', `ddmbridge serve ${why}; restarting in ${delay} ms`);
    this.restartTimer = setTimeout(() => {
      this.ready = this.spawnOnce();
      this.ready.catch(() => undefined);
    }, delay);
  }

  /** Sends a request, starting the backend first if needed. */
  async request<T = unknown>(method: string, params: unknown = {}, timeoutMs?: number): Promise<T> {
    if (this._state !== 'running') {
      await this.start();
    }
    const conn = this.conn;
    if (!conn) {
      throw new BackendError('ddmbridge serve is not running');
    }
    const limit = timeoutMs ?? this.requestTimeout ?? 15_000;
    const cts = new rpc.CancellationTokenSource();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        cts.cancel();
        reject(new BackendError(`${method}: no answer from ddmbridge within ${limit} ms`));
      }, limit);
    });
    try {
      return await Promise.race([conn.sendRequest<T>(method, params, cts.token), timeout]);
    } catch (e) {
      if (e instanceof rpc.ResponseError) {
        throw new BackendError(`${method}: ${e.message}`, e.code, e.data);
      }
      throw e;
    } finally {
      clearTimeout(timer);
      cts.dispose();
    }
  }

  /** Stops the process; no restart. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const proc = this.proc;
    this.conn?.dispose();
    this.conn = undefined;
    this.ready = undefined;
    if (proc && proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.stdin?.end();
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(t);
    }
    this.proc = undefined;
    this.setState('stopped');
  }

  /** Stops and starts again, forgetting earlier failures. */
  async restart(): Promise<void> {
    await this.stop();
    this.failures = [];
    await this.start();
  }
}
