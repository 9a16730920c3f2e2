import { testEventRoutes } from '@/lib/server/routes/conversions';

/** POST sends one test event through the conversion now and answers its outcome. */
export default testEventRoutes;
