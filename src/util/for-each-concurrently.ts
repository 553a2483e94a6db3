/**
 * Runs `run` for every item, at most `limit` at a time, starting them in order. When a run rejects, no
 * further item is started; the runs under way are awaited, then the first rejection is thrown. Runs
 * that must all happen catch their own errors.
 */
export async function forEachConcurrently<T>(
  items: readonly T[],
  limit: number,
  run: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        await run(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  if (failure !== undefined) throw failure.error;
}
