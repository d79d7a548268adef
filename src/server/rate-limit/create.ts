/**
 * Chooses the rate limiter from the configuration: Redis when `REDIS_URL` is set (limits shared by every
 * process using it), in process otherwise. The Redis client is loaded only when it is used, so a server
 * without Redis starts without loading it.
 */
import type { RuntimeConfig } from '../config.js';
import type { RateLimiter } from './limiter.js';
import { MemoryRateLimiter } from './memory.js';

export async function createLimiter(config: Pick<RuntimeConfig, 'redisUrl' | 'redisPrefix' | 'rateLimitWhenUnavailable'>): Promise<RateLimiter> {
  if (!config.redisUrl) return new MemoryRateLimiter();
  const { createRedis, RedisRateLimiter } = await import('./redis.js');
  return new RedisRateLimiter(createRedis(config.redisUrl), { prefix: config.redisPrefix, onUnavailable: config.rateLimitWhenUnavailable });
}
