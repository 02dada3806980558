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
import { useMessageText, useText } from '../../i18n/useText';
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
  const t = useText();
  const messageText = useMessageText();
  const n = index + 1;
  const wrong = (field: FormProblem['field']) => problem?.index === index && problem.field === field;
  const hint = (field: FormProblem['field']) => (wrong(field) && problem ? messageText(problem.message) : ' ');
  const set = (patch: Partial<RecipientForm>) => onChange({ ...value, ...patch });
  const observer = value.recipientType === RECEIVES_COPY;
  return (
    <Card variant="outlined" data-testid={`recipient-${index + 1}`}>
      <CardContent>
        <Box sx={{ display: 'flex', alignItems: 'center', mb: 1 }}>
          <Typography sx={{ flex: 1, fontWeight: 600 }}>{t('console.initiate.recipient', { n })}</Typography>
          {onRemove && (
            <Tooltip title={t('console.initiate.removeRecipient')}>
              <IconButton aria-label={t('console.initiate.removeRecipientN', { n })} onClick={onRemove} size="small">
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
            label={t('console.initiate.name')}
            value={value.name}
            error={wrong('name')}
            helperText={hint('name')}
            onChange={(e) => set({ name: e.target.value })}
            inputProps={{ maxLength: 200 }}
          />
          <TextField
            label={t('console.initiate.email')}
            type="email"
            value={value.email}
            error={wrong('email')}
            helperText={hint('email')}
            onChange={(e) => set({ email: e.target.value })}
          />
          <TextField
            label={t('console.initiate.phone')}
            value={value.phone}
            error={wrong('phone')}
            helperText={hint('phone')}
            onChange={(e) => set({ phone: e.target.value.replace(/[^\d\s-]/g, '').slice(0, 14) })}
            inputProps={{ inputMode: 'tel', 'aria-label': t('console.initiate.phoneOf', { n }) }}
            InputProps={{
              startAdornment: (
                <InputAdornment position="start" title={t('console.initiate.india')}>
                  +91
                </InputAdornment>
              ),
            }}
          />
          <FormControl error={wrong('recipientType')}>
            <InputLabel id={`recipient-type-${value.key}`}>{t('console.initiate.recipientType')}</InputLabel>
            <Select
              labelId={`recipient-type-${value.key}`}
              label={t('console.initiate.recipientType')}
              value={value.recipientType}
              onChange={(e) => {
                const recipientType = e.target.value as RecipientForm['recipientType'];
                set({ recipientType, ...(recipientType === RECEIVES_COPY ? { signatureType: '' } : {}) });
              }}
            >
              {RECIPIENT_TYPES.map((type) => (
                <MenuItem key={type} value={type}>
                  {messageText(type)}
                </MenuItem>
              ))}
            </Select>
            <FormHelperText>{hint('recipientType')}</FormHelperText>
          </FormControl>
          {!observer && (
            <FormControl error={wrong('signatureType')}>
              <InputLabel id={`signature-type-${value.key}`}>{t('console.initiate.signatureType')}</InputLabel>
              <Select
                labelId={`signature-type-${value.key}`}
                label={t('console.initiate.signatureType')}
                value={value.signatureType}
                onChange={(e) => set({ signatureType: e.target.value as SignatureType })}
              >
                {signatureTypes.map((type) => (
                  <MenuItem key={type} value={type}>
                    {type}
                  </MenuItem>
                ))}
              </Select>
              <FormHelperText>{hint('signatureType')}</FormHelperText>
            </FormControl>
          )}
          <FormControl>
            <InputLabel id={`language-${value.key}`}>{t('console.initiate.language')}</InputLabel>
            <Select
              labelId={`language-${value.key}`}
              label={t('console.initiate.language')}
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
