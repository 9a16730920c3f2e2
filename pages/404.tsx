import { layouts } from '@/layouts/index';
import ErrorPage, { notFoundPage } from '@/components/ErrorPage';

export default function NotFound() {
  return <ErrorPage {...notFoundPage} />;
}

NotFound.getLayout = layouts.none;
