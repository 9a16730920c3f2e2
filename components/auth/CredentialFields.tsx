import GoogleSignInButton from '@/components/auth/GoogleSignInButton';
import Button from '@/components/ui/Button';
import TextField from '@/components/ui/TextField';

interface CredentialFieldsProps {
  email: string;
  password: string;
  onEmailChange: (value: string) => void;
  onPasswordChange: (value: string) => void;
  passwordAutoComplete: 'current-password' | 'new-password';
  submitLabel: string;
  busy: boolean;
  onGoogleError: (message: string | null) => void;
}

/** Email, password, the submit button and the Google alternative: shared by log in and sign up. */
export default function CredentialFields(props: CredentialFieldsProps) {
  return (
    <>
      <TextField
        label="Email"
        type="email"
        name="email"
        autoComplete="email"
        value={props.email}
        onChange={(e) => props.onEmailChange(e.target.value)}
      />
      <TextField
        label="Password"
        type="password"
        name="password"
        autoComplete={props.passwordAutoComplete}
        value={props.password}
        onChange={(e) => props.onPasswordChange(e.target.value)}
      />
      <Button type="submit" busy={props.busy}>
        {props.submitLabel}
      </Button>
      <div className="divider">or</div>
      <GoogleSignInButton onError={props.onGoogleError} />
    </>
  );
}
