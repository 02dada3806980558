import { SignerRoutes } from '@esign/contract';
import { Route, Routes } from 'react-router-dom';
import Esign from './pages/Esign';
import Failed from './pages/Failed';
import NotFound from './pages/NotFound';
import RetryMailSent from './pages/RetryMailSent';
import Success from './pages/Success';

/** The recipient routes of the specification (section 2); everything else is the console's /not-found. */
const App = () => (
  <Routes>
    <Route path={SignerRoutes.esign} element={<Esign />} />
    <Route path={SignerRoutes.success} element={<Success />} />
    <Route path={SignerRoutes.failed} element={<Failed />} />
    <Route path={SignerRoutes.retryMailSent} element={<RetryMailSent />} />
    <Route path="*" element={<NotFound />} />
  </Routes>
);

export default App;
