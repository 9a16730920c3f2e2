import NotificationsPage from '@/components/alerts/NotificationsPage';

export default NotificationsPage;
