import { LANGUAGE_NAMES, RECIPIENT_LANGUAGES, RECIPIENT_TYPES } from '@esign/contract';
import type { RecipientLanguage, SignatureType } from '@esign/contract';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutline';
import {
  Box,
  Card,
  CardContent,
  FormControl,
  FormHelperText,
  IconButton,
  InputAdornment,
  InputLabel,
  MenuItem,
  Select,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import { RECEIVES_COPY, type FormProblem, type RecipientForm } from './form';

/** One recipient: name, email, phone (India only), recipient type and, for a signer, the signature type. */
const RecipientCard = ({
  index,
  value,
  signatureTypes,
  problem,
  onChange,
  onRemove,
}: {
  index: number;
  value: RecipientForm;
  signatureTypes: SignatureType[];
  problem: FormProblem | null;
  onChange: (next: RecipientForm) => void;
  onRemove?: () => void;
}) => {
  const wrong = (field: FormProblem['field']) => problem?.index === index && problem.field === field;
  const hint = (field: FormProblem['field']) => (wrong(field) ? problem?.message : ' ');
  const set = (patch: Partial<RecipientForm>) => onChange({ ...value, ...patch });
  const observer = value.recipientType === RECEIVES_COPY;
  return (
    <Card variant="outlined" data-testid={`recipient-${index + 1}`}>
      <CardContent>
        <Box sx={{ display: 'flex', alignItems: 'center', mb: 1 }}>
          <Typography sx={{ flex: 1, fontWeight: 600 }}>Recipient {index + 1}</Typography>
          {onRemove && (
            <Tooltip title="Remove recipient">
              <IconButton aria-label={`Remove recipient ${index + 1}`} onClick={onRemove} size="small">
                <DeleteOutlineIcon />
              </IconButton>
            </Tooltip>
          )}
        </Box>
        <Box
          sx={{
            display: 'grid',
            gap: 1,
            gridTemplateColumns: { xs: '1fr', md: 'repeat(3, 1fr)', lg: 'repeat(6, 1fr)' },
          }}
        >
          <TextField
            label="Name"
            value={value.name}
            error={wrong('name')}
            helperText={hint('name')}
            onChange={(e) => set({ name: e.target.value })}
            inputProps={{ maxLength: 200 }}
          />
          <TextField
            label="Email"
            type="email"
            value={value.email}
            error={wrong('email')}
            helperText={hint('email')}
            onChange={(e) => set({ email: e.target.value })}
          />
          <TextField
            label="Phone"
            value={value.phone}
            error={wrong('phone')}
            helperText={hint('phone')}
            onChange={(e) => set({ phone: e.target.value.replace(/[^\d\s-]/g, '').slice(0, 14) })}
            inputProps={{ inputMode: 'tel', 'aria-label': `Phone of recipient ${index + 1}` }}
            InputProps={{
              startAdornment: (
                <InputAdornment position="start" title="India">
                  +91
                </InputAdornment>
              ),
            }}
          />
          <FormControl error={wrong('recipientType')}>
            <InputLabel id={`recipient-type-${value.key}`}>Recipient type</InputLabel>
            <Select
              labelId={`recipient-type-${value.key}`}
              label="Recipient type"
              value={value.recipientType}
              onChange={(e) => {
                const recipientType = e.target.value as RecipientForm['recipientType'];
                set({ recipientType, ...(recipientType === RECEIVES_COPY ? { signatureType: '' } : {}) });
              }}
            >
              {RECIPIENT_TYPES.map((t) => (
                <MenuItem key={t} value={t}>
                  {t}
                </MenuItem>
              ))}
            </Select>
            <FormHelperText>{hint('recipientType')}</FormHelperText>
          </FormControl>
          {!observer && (
            <FormControl error={wrong('signatureType')}>
              <InputLabel id={`signature-type-${value.key}`}>Signature type</InputLabel>
              <Select
                labelId={`signature-type-${value.key}`}
                label="Signature type"
                value={value.signatureType}
                onChange={(e) => set({ signatureType: e.target.value as SignatureType })}
              >
                {signatureTypes.map((t) => (
                  <MenuItem key={t} value={t}>
                    {t}
                  </MenuItem>
                ))}
              </Select>
              <FormHelperText>{hint('signatureType')}</FormHelperText>
            </FormControl>
          )}
          <FormControl>
            <InputLabel id={`language-${value.key}`}>Language</InputLabel>
            <Select
              labelId={`language-${value.key}`}
              label="Language"
              value={value.language}
              onChange={(e) => set({ language: e.target.value as RecipientLanguage })}
              data-testid="recipient-language"
            >
              {RECIPIENT_LANGUAGES.map((language) => (
                <MenuItem key={language} value={language} lang={language}>
                  {LANGUAGE_NAMES[language]}
                </MenuItem>
              ))}
            </Select>
            <FormHelperText> </FormHelperText>
          </FormControl>
        </Box>
      </CardContent>
    </Card>
  );
};

export default RecipientCard;
