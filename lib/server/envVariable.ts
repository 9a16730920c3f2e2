import { z } from 'zod';

/** What a configuration variable may hold (lib/server/env.ts declares every one; a connector folder declares its own in its config.ts). */
export const url = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' });
export const positiveInteger = z.string().regex(/^[1-9]\d*$/, 'must be a positive whole number');
export const base64Key32 = z.string().refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded');
export const hostPort = z.string().regex(/^[\w.-]+:\d+$/, 'must be host:port');
export const flag = z.enum(['', '0', '1'], { message: 'must be 1 or empty' });
export const anyText = z.string();

export interface Variable {
  /** The shape a set value must have. */
  format: z.ZodType<string>;
  /** A credential: read from Secret Manager in production, never logged. */
  secret?: true;
  /** A real deployment fails at its first sign-in, payment or consent without it: refuse to start instead. */
  required?: true;
}

export const text: Variable = { format: anyText };
export const link: Variable = { format: url };
export const count: Variable = { format: positiveInteger };
export const secret: Variable = { format: anyText, secret: true };
export const requiredSecret: Variable = { format: anyText, secret: true, required: true };
export const requiredText: Variable = { format: anyText, required: true };
