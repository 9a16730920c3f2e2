/** The app's public origin for links in emails: configured, never taken from a request's Host header. */
export function appUrl(path: string): string {
  const base = (process.env.APP_URL || 'http://localhost:3000').replace(/\/$/, '');
  return `${base}${path}`;
}
