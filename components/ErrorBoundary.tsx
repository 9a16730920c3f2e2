import { Component, type ErrorInfo, type ReactNode } from 'react';
import ErrorPage, { internalErrorPage } from '@/components/ErrorPage';

interface State {
  failed: boolean;
}

/** Shows the 'Internal Server Error' page instead of a blank screen when rendering throws. */
interface Props {
  /** A new value (the next route) clears the error. */
  resetKey?: string;
  onError?: (error: Error) => void;
  children: ReactNode;
}

export default class ErrorBoundary extends Component<Props, State> {
  state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error('Unhandled application error', error, info.componentStack);
    this.props.onError?.(error);
  }

  componentDidUpdate(previous: Props) {
    if (this.state.failed && previous.resetKey !== this.props.resetKey) this.setState({ failed: false });
  }

  render() {
    return this.state.failed ? <ErrorPage {...internalErrorPage} /> : this.props.children;
  }
}
