import Head from 'next/head';
import Link from 'next/link';

interface ErrorPageProps {
  statusCode: 404 | 500;
  title: 'Page Not Found' | 'Internal Server Error';
  description: string;
}

export default function ErrorPage({ statusCode, title, description }: ErrorPageProps) {
  return (
    <main id="main" className="centered">
      <Head>
        <title>{`${title} · SignalBridge`}</title>
      </Head>
      <div className="card error-page stack">
        <p className="error-page__code">{statusCode}</p>
        <h1>{title}</h1>
        <p className="muted">{description}</p>
        <p>
          <Link href="/" className="button">
            Go to the home page
          </Link>
        </p>
      </div>
    </main>
  );
}

export const notFoundPage = {
  statusCode: 404,
  title: 'Page Not Found',
  description: 'There is nothing at this address. Check the link, or start again from the home page.',
} as const;

export const internalErrorPage = {
  statusCode: 500,
  title: 'Internal Server Error',
  description: 'Something went wrong on our side. Please try again in a moment.',
} as const;
