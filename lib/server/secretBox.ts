import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for credentials at rest. The key is CREDENTIALS_ENCRYPTION_KEY (32 bytes, base64);
 * a sealed value is `v1.<iv>.<tag>.<ciphertext>` in base64url, and the associated data binds it to
 * the document it belongs to, so a sealed value copied into another organization does not open.
 */
const VERSION = 'v1';

function decodeKey(name: string, raw: string): Buffer {
  const decoded = Buffer.from(raw, 'base64');
  if (decoded.length !== 32) throw new Error(`${name} must be 32 bytes, base64-encoded`);
  return decoded;
}

function key(): Buffer {
  const raw = process.env.CREDENTIALS_ENCRYPTION_KEY;
  if (!raw) throw new Error('CREDENTIALS_ENCRYPTION_KEY is not set (32 random bytes, base64)');
  return decodeKey('CREDENTIALS_ENCRYPTION_KEY', raw);
}

/**
 * The keys a sealed value may open with: the current one, then (while a rotation is under way,
 * docs/DEPLOY.md) CREDENTIALS_ENCRYPTION_KEY_PREVIOUS. Sealing always uses the current one.
 */
function openingKeys(): Buffer[] {
  const previous = process.env.CREDENTIALS_ENCRYPTION_KEY_PREVIOUS;
  return previous ? [key(), decodeKey('CREDENTIALS_ENCRYPTION_KEY_PREVIOUS', previous)] : [key()];
}

export function seal(plaintext: string, associatedData: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key(), iv);
  cipher.setAAD(Buffer.from(associatedData));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

export function open(sealed: string, associatedData: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('Not a sealed credential');
  let failure: unknown;
  // The authentication tag decides: a value sealed under the previous key fails under the current one.
  for (const candidate of openingKeys()) {
    const decipher = createDecipheriv('aes-256-gcm', candidate, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(associatedData));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}

/** A secret derived from the credentials key for another purpose (state signing), never the key itself. */
export function derivedSecret(purpose: string): Buffer {
  return createHash('sha256').update(key()).update(`signalbridge:${purpose}`).digest();
}
