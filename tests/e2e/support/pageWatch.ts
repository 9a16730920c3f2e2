import type { Page } from 'playwright/test';

/**
 * What a page went through from now on: every path its main frame showed (client-side route changes
 * included) and every request the server refused for want of a subscription (402), by path.
 */
export function watchPage(page: Page): { paths: string[]; refused: string[] } {
  const watched = { paths: [] as string[], refused: [] as string[] };
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) watched.paths.push(new URL(frame.url()).pathname);
  });
  page.on('response', (response) => {
    if (response.status() === 402) watched.refused.push(new URL(response.url()).pathname);
  });
  return watched;
}
