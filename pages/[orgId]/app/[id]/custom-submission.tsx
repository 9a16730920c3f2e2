import CustomSubmissionPage from '@/components/apps/CustomSubmissionPage';

export default CustomSubmissionPage;
