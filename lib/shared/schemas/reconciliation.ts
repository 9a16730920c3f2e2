import { z } from 'zod';

/** The counted share (%) under which a conversion alerts (1–100). */
export const countedThresholdSchema = z
  .object({ threshold: z.number('A number from 1 to 100').int('A whole number').min(1, 'At least 1 %').max(100, 'At most 100 %') })
  .strict();

export type CountedThresholdInput = z.infer<typeof countedThresholdSchema>;
