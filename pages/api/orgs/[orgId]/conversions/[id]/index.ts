import { conversionRoutes } from '@/lib/server/routes/conversions';

/** GET one conversion (status, hourly counts, parked events); PATCH edits, pauses or resumes it; DELETE removes it. */
export default conversionRoutes;
