import ForgotPasswordForm from '@/components/auth/ForgotPasswordForm';
import { layouts } from '@/layouts/index';

export default function ForgotPasswordPage() {
  return <ForgotPasswordForm />;
}

ForgotPasswordPage.getLayout = layouts.auth;
