/**
 * What one platform's fake is to the sandbox's one server (sandbox/platforms.ts): each fake lives in
 * sandbox/<platform>/ and is listed once in sandbox/fakes.ts, from which the server takes its routes,
 * the app's environment, the /__sandbox index and the app credentials.
 */
import type { Brand } from '@/sandbox/consent';
import type { ConversionPlatform } from '@/sandbox/conversions';
import type { MatchPlatform } from '@/sandbox/matching';
import type { SandboxPlatform, SandboxStore } from '@/sandbox/store';

export interface Fake {
  /** The platform's slug: its folder here and in lib/server/connectors/. */
  readonly slug: string;
  /** The fake on the shared store of logins and ledgers: the paths it answers, and how. */
  readonly create: (store: SandboxStore) => SandboxPlatform;
  /** The environment that points the app's client of this platform at the sandbox at `url`. */
  readonly env: (url: string) => Record<string, string>;
  /** The app's credentials with the platform (SANDBOX_CLIENTS), by the name tests know them. */
  readonly clients?: Readonly<Record<string, unknown>>;
  /** Its lines (`<li>`) under "Credentials to paste" on /__sandbox. */
  readonly credentials?: (base: string) => string;
  /** The OAuth provider it plays, as its consent pages show it: /__sandbox can revoke every login to it. */
  readonly brand?: Brand;
  /** The ledger's name of the conversions it receives: /__sandbox/conversions lists them and switches its failures. */
  readonly conversions?: ConversionPlatform;
  /** Its section of /__sandbox/matches: what it matched per target (pixel, conversion action, goal). */
  readonly matches?: { readonly platform: MatchPlatform; readonly label: string; readonly target: string };
}
