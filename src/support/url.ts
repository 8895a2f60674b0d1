/** `https://x/api///` → `https://x/api`, in one pass (the regex /\/+$/ backtracks on a run of slashes). */
export function trimTrailingSlashes(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 47) end--;
  return s.slice(0, end);
}
