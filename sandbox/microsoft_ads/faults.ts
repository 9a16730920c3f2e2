import type { ServerResponse } from 'node:http';

/** Answers an Ad API fault (AdApiFaultDetail) with Microsoft's numeric code, error code and message. */
export type AdApiFault = (res: ServerResponse, status: number, code: number, errorCode: string, message: string) => unknown;
