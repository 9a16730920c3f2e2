import { PlatformError } from '@/lib/server/connectors/errors';

/** The PlatformError a send (or any platform call) was refused with; fails the test when it was not refused. */
export async function refusal(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}
