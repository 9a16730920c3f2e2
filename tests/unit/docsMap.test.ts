import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

// docs/README.md is where a newcomer finds a route's page and handler: every page file and API handler is named
// there, so a route added without its line fails here rather than leaving the map stale.
const root = path.join(__dirname, '../..');
const map = readFileSync(path.join(root, 'docs/README.md'), 'utf8');

function filesUnder(dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((entry) => {
    const relative = `${dir}/${entry}`;
    return statSync(path.join(root, relative)).isDirectory() ? filesUnder(relative) : [relative];
  });
}

const routeFiles = filesUnder('pages').filter((file) => /\.tsx?$/.test(file) && !/\/_(app|document)\.tsx$/.test(file));

test.each(routeFiles)('docs/README.md names %s', (file) => {
  expect(map.includes(`\`${file}\``) ? file : `${file} is missing from docs/README.md`).toBe(file);
});
