/** A platform API version we pin: each connector folder's version.ts declares its own, connectors/versions.ts lists them. */
export interface PinnedVersion {
  /** What we call. */
  api: string;
  /** The version as it appears in the platform's URLs. */
  version: string;
  /** The last day the platform serves this version (YYYY-MM-DD), or null while none is published. */
  sunset: string | null;
  /** Where the sunset (or its absence) is published. */
  source: string;
}
