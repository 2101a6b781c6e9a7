/** Where an operator command writes (tests pass their own collectors). */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Standard output and standard error, a line each. */
export const stdio: CliIo = {
  out: (t) => process.stdout.write(`${t}\n`),
  err: (t) => process.stderr.write(`${t}\n`),
};
