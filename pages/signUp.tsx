import SignUpForm from '@/components/auth/SignUpForm';

export default function SignUpPage() {
  return <SignUpForm />;
}
