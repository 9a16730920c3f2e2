import { z } from 'zod';
import { percentSchema } from '@/lib/shared/schemas/percent';

/** The share of what a conversion sent that its platform received (%), under which it alerts (1–100). */
export const countedThresholdSchema = z.object({ threshold: percentSchema }).strict();

export type CountedThresholdInput = z.infer<typeof countedThresholdSchema>;
