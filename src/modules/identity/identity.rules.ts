/** Username rules (reference User.username): 3..32, letters, digits, `-`, `_`; alphanumeric at both ends; no `--`, `__`, `-_`. */
export function usernameProblem(u: string): string | undefined {
  if (u.length < 3 || u.length > 32) return 'Username must be between 3 and 32 characters';
  if (!/^[a-zA-Z0-9][a-zA-Z0-9_-]*[a-zA-Z0-9]$/.test(u)) {
    return 'Username must contain only letters, numbers, dashes and underscores, and begin and end with a letter or number';
  }
  if (/[_-]{2,}/.test(u)) return 'Username may not contain consecutive dashes or underscores';
  return undefined;
}

const EMAIL_RE = /^[^\s@<>()"=,;:]+@[^\s@<>()"=,;:]+\.[^\s@<>()"=,;:]+$/;

export function emailProblem(e: string): string | undefined {
  if (e.length > 128) return 'Email must be at most 128 characters';
  if (!EMAIL_RE.test(e)) return 'Must be a valid email address';
  return undefined;
}
