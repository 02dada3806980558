import { Card, CardContent, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { useId } from 'react';

/** One part of a request's page: a card with its heading (a landmark named by it) and an optional introduction. */
const Section = ({
  title,
  intro,
  testId,
  children,
}: {
  title: string;
  intro?: string;
  testId?: string;
  children: ReactNode;
}) => {
  const id = useId();
  return (
    <Card component="section" aria-labelledby={id} data-testid={testId}>
      <CardContent>
        <Typography id={id} component="h2" variant="h6">
          {title}
        </Typography>
        {intro && (
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
            {intro}
          </Typography>
        )}
        {children}
      </CardContent>
    </Card>
  );
};

export default Section;
