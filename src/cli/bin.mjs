#!/usr/bin/env node
// The `dispatch` executable: loads the TypeScript sources through tsx.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
