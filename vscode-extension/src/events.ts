// A minimal event emitter (vscode.EventEmitter's shape, without vscode), so
// the modules that publish events run in the unit tests as they run in VS Code.

export interface Disposable {
  dispose(): void;
}

/** A function that subscribes a listener, as vscode.Event<T>. */
export type Event<T> = (fn: (v: T) => void) => Disposable;

export class Emitter<T> {
  private listeners = new Set<(v: T) => void>();
  readonly event: Event<T> = (fn) => {
    this.listeners.add(fn);
    return { dispose: () => this.listeners.delete(fn) };
  };
  fire(v: T): void {
    for (const fn of [...this.listeners]) {
      fn(v);
    }
  }
  dispose(): void {
    this.listeners.clear();
  }
}
