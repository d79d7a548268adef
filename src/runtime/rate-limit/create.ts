/**
 * Chooses the rate limiter from the configuration: Redis when `REDIS_URL` is set (limits shared by every
 * process using it), in process otherwise.
 */
import type { RuntimeConfig } from '../config.js';
import type { RateLimiter } from './limiter.js';
import { MemoryRateLimiter } from './memory.js';
import { createRedis, RedisRateLimiter } from './redis.js';

export function createLimiter(config: Pick<RuntimeConfig, 'redisUrl' | 'redisPrefix' | 'rateLimitWhenUnavailable'>): RateLimiter {
  if (!config.redisUrl) return new MemoryRateLimiter();
  return new RedisRateLimiter(createRedis(config.redisUrl), { prefix: config.redisPrefix, onUnavailable: config.rateLimitWhenUnavailable });
}
