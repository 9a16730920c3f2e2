import type { NextApiHandler } from 'next';
import { customerIoEnv, startFakeCustomerIo, type FakeCustomerIo } from '@/sandbox/customerio';
import { closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';

export interface ServedWithCustomerIo<K extends PropertyKey> {
  servers: Record<K, TestServer>;
  fake: FakeCustomerIo;
}

/** Starts the fake Customer.io, points the app at it (plus `env`), and serves each handler. */
export async function serveWithCustomerIo<T extends Record<string, NextApiHandler>>(
  handlers: T,
  env: Record<string, string> = {},
): Promise<ServedWithCustomerIo<keyof T>> {
  const fake = await startFakeCustomerIo();
  Object.assign(process.env, customerIoEnv(fake), env);
  const servers = await serveHandlers(handlers);
  return { servers, fake };
}

export async function stopServed({ servers, fake }: ServedWithCustomerIo<PropertyKey>): Promise<void> {
  await closeAll(servers);
  await fake.close();
}
