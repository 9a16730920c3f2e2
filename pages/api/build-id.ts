import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createHandler, route } from '@/lib/server/http/createHandler';

/** The build this server runs (or, after a deployment, the new one): open tabs compare it with theirs. */
export default createHandler({
  GET: route({
    access: 'public',
    async handle() {
      if (process.env.NODE_ENV !== 'production') return { buildId: 'development' };
      const file = path.join(process.cwd(), process.env.NEXT_DIST_DIR || '.next', 'BUILD_ID');
      return { buildId: (await readFile(file, 'utf8')).trim() };
    },
  }),
});
