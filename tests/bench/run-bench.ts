/** Placeholder replaced by the benchmark runner. */
export async function runBench(args: string[]): Promise<number> {
  void args;
  console.error('bench: not built yet');
  return 1;
}
