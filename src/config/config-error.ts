/** A bad environment value: the start stops with a message naming the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
  }
}
