/** Refused because the same work is already under way (the route answers 409). */
export class BusyError extends Error {
  constructor() {
    super('already under way');
    this.name = 'BusyError';
  }
}

/** The work, refused with BusyError while a call of it has not settled. */
export function oneAtATime<T>(work: () => Promise<T>): () => Promise<T> {
  let running = false;
  return async () => {
    if (running) throw new BusyError();
    running = true;
    try {
      return await work();
    } finally {
      running = false;
    }
  };
}
