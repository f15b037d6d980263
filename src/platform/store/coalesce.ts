/**
 * Request coalescing for a networked database: the calls made during one turn of the event loop
 * are answered by one statement sent just after it (setImmediate), so N concurrent requests cost
 * one round trip instead of N. Each caller still gets exactly its own answer, and none waits
 * longer than one turn plus that round trip.
 */
export function coalesce<K, V>(run: (keys: K[]) => Promise<V[]>, maxBatch = 256): (key: K) => Promise<V> {
  let pending: Array<{ key: K; resolve: (value: V) => void; reject: (error: unknown) => void }> = [];

  function flush(): void {
    const batch = pending.splice(0, maxBatch);
    if (pending.length) setImmediate(flush);
    run(batch.map((entry) => entry.key)).then(
      (values) => batch.forEach((entry, i) => entry.resolve(values[i]!)),
      (error) => batch.forEach((entry) => entry.reject(error)),
    );
  }

  return (key) =>
    new Promise<V>((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ key, resolve, reject });
    });
}
