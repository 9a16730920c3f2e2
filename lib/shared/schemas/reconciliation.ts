import { z } from 'zod';
import { percentSchema } from '@/lib/shared/schemas/percent';

/** The counted share (%) under which a conversion alerts (1–100). */
export const countedThresholdSchema = z.object({ threshold: percentSchema }).strict();

export type CountedThresholdInput = z.infer<typeof countedThresholdSchema>;
