import SignUpForm from '@/components/auth/SignUpForm';
import { layouts } from '@/layouts/index';

export default function SignUpPage() {
  return <SignUpForm />;
}

SignUpPage.getLayout = layouts.auth;
