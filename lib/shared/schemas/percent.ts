import { z } from 'zod';

/** A whole percentage from 1 to 100 (an alert's share): one rule and one wording for every threshold. */
export const percentSchema = z.number('A number from 1 to 100').int('A whole number').min(1, 'At least 1 %').max(100, 'At most 100 %');
