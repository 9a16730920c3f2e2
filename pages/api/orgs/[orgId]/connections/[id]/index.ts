import { connectionRoutes } from '@/lib/server/routes/connections';

/** GET a connection with its runs and written days; PATCH edits, pauses or resumes it; DELETE removes it. */
export default connectionRoutes;
