import { RECIPIENT_TYPES } from '@esign/contract';
import { Avatar, Box, Chip, Stack, Step, StepLabel, Stepper, Typography } from '@mui/material';
import { useMessageText } from '../../i18n/useText';
import { signerColour } from './colors';
import type { CopyReceiver, SignerPlacement } from './session';

const [NEEDS_TO_SIGN, RECEIVES_A_COPY] = RECIPIENT_TYPES;

/** One step per signer, in signing order, each in the colour of the signer's box. */
export const SignerStepper = ({ signers, step }: { signers: SignerPlacement[]; step: number }) => (
  <Stepper activeStep={step} alternativeLabel sx={{ mb: 2 }} data-testid="signer-stepper">
    {signers.map((signer, index) => (
      <Step key={signer.order} completed={false}>
        <StepLabel
          icon={
            <Avatar
              sx={{
                width: 28,
                height: 28,
                fontSize: 14,
                bgcolor: signerColour(index),
                opacity: index === step ? 1 : 0.55,
              }}
            >
              {index + 1}
            </Avatar>
          }
        >
          {signer.name}
        </StepLabel>
      </Step>
    ))}
  </Stepper>
);

/** The current signer's details, and the recipients who only receive a copy (they get no box and no step). */
export const RecipientDetails = ({
  signer,
  colour,
  copyReceivers,
}: {
  signer: SignerPlacement;
  colour: string;
  copyReceivers: CopyReceiver[];
}) => {
  const messageText = useMessageText();
  return (
    <Stack spacing={1} data-testid="recipient-details">
      <Box sx={{ borderLeft: `4px solid ${colour}`, pl: 1.5 }}>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
          <Typography variant="subtitle1" sx={{ fontWeight: 700 }} data-testid="current-signer">
            {signer.name}
          </Typography>
          <Chip size="small" label={messageText(NEEDS_TO_SIGN)} sx={{ bgcolor: colour, color: 'common.white' }} />
          {signer.signatureType && <Chip size="small" variant="outlined" label={signer.signatureType} />}
        </Box>
        <Typography variant="body2" color="text.secondary">
          {signer.email}
        </Typography>
        <Typography variant="body2" color="text.secondary">
          {signer.phoneNumber}
        </Typography>
      </Box>
      {copyReceivers.map((receiver) => (
        <Box
          key={receiver.order}
          data-testid="copy-receiver"
          sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap', pl: 1.5 }}
        >
          <Typography variant="body2">{receiver.name}</Typography>
          <Typography variant="body2" color="text.secondary">
            {receiver.email}
          </Typography>
          <Chip size="small" variant="outlined" label={messageText(RECEIVES_A_COPY)} />
        </Box>
      ))}
    </Stack>
  );
};
