/** The mark (the same as the login service's pages). */
export function Logo() {
  return (
    <svg viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <path fill="#7fb2e5" d="M6 20a6 6 0 0 1 1.6-11.8A8 8 0 0 1 23 9a5.5 5.5 0 0 1 2 11z" />
      <path fill="#ffffff" d="M4 24h24v2H4zm4 3h16v2H8z" />
    </svg>
  );
}
