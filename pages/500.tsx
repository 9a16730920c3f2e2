import { layouts } from '@/layouts/index';
import ErrorPage, { internalErrorPage } from '@/components/ErrorPage';

export default function InternalServerError() {
  return <ErrorPage {...internalErrorPage} />;
}

InternalServerError.getLayout = layouts.none;
