import { plannedPage } from '@/components/PlannedPage';

export default plannedPage('Connecting Meta Ads', "This page sends you to Meta's consent screen to connect Meta Ads.");
