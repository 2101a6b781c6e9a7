import type { AnyJobDefinition } from './runner.js';

/** Every job definition, listed explicitly. Areas add their jobs here. */
export function jobDefinitions(): AnyJobDefinition[] {
  return [];
}
