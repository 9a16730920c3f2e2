import TextField from '@/components/ui/TextField';
import { firstError } from '@/components/ui/failures';

/** The name of a connection or conversion: required, at most 100 characters (as their schemas say), its error under it. */
export default function NameField({
  id,
  value,
  onChange,
  errors,
  placeholder,
}: {
  id?: string;
  value: string;
  onChange: (name: string) => void;
  errors: Record<string, string[]>;
  placeholder?: string;
}) {
  return (
    <TextField
      id={id}
      label="Name"
      value={value}
      onChange={(event) => onChange(event.target.value)}
      maxLength={100}
      required
      placeholder={placeholder}
      error={firstError(errors, 'name')}
    />
  );
}
