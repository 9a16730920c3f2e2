import { NextResponse, type NextRequest } from 'next/server';

/**
 * The coarse server-side guard runs here (Node runtime, so it can verify session cookies with
 * firebase-admin). Until the session cookie exists (accounts issue) every page is let through;
 * API routes authenticate in createHandler.
 */
export function middleware(request: NextRequest) {
  void request;
  return NextResponse.next();
}

export const config = {
  runtime: 'nodejs',
  matcher: ['/((?!api|_next/static|_next/image|favicon.svg).*)'],
};
