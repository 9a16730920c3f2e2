import LoginForm from '@/components/auth/LoginForm';
import { layouts } from '@/layouts/index';

export default function LoginPage() {
  return <LoginForm />;
}

LoginPage.getLayout = layouts.auth;
