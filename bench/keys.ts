/** How many keys (each for its own entity) the benchmark spreads its load over. */
export const BENCH_KEYS = 256;
