import SettingsPage from '@/components/team/SettingsPage';

export default SettingsPage;
