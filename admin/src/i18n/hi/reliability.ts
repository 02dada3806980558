import type { ConsoleCatalogue } from '../catalogue';

/** Issue 24's texts from the contract (WatchdogMessages, RetentionMessages, SignerDataMessages) in Hindi. */
export const watchdogHindi: ConsoleCatalogue['watchdog'] = {
  sealNoJob: 'हर हस्ताक्षर आ चुका है, पर उसे लगाने या दस्तावेज़ को सील करने के लिए कोई सील कार्य नहीं बचा।',
  sealFailed: 'सील कार्य %{attempts} प्रयासों के बाद रुक गया: %{error}',
  sealInterrupted: 'सील कार्य बहुत बार बाधित हुआ (सील करते समय सर्वर रुक गया)।',
  signingTooLong: 'हस्ताक्षरकर्ता %{order} (%{method}) %{duration} से हस्ताक्षर कर रहा है, जो इस विधि की सीमा से अधिक है।',
  invitationFailed: 'हस्ताक्षरकर्ता %{order} को आमंत्रण नहीं भेजा जा सका: %{error}',
  invitationWaiting: 'हस्ताक्षरकर्ता %{order} को आमंत्रण %{duration} बाद भी नहीं भेजा गया।',
  nextSignerNotInvited: 'हस्ताक्षरकर्ता %{order} की बारी है, पर उसे कभी आमंत्रित नहीं किया गया।',
  retried: 'फिर से कतार में लगाया गया।',
  notRetryable: 'वॉचडॉग इसे आगे नहीं बढ़ा सकता: केवल हस्ताक्षरकर्ता ही हस्ताक्षर पूरा कर सकता है। आमंत्रण फिर भेजें या अनुरोध रद्द करें।',
  alreadyResolved: 'यह पहले ही आगे बढ़ चुका है; फिर से प्रयास करने को कुछ नहीं।',
  findingNotFound: "कोई निष्कर्ष '%{id}' नहीं।",
  bannerTitle: 'ध्यान देने योग्य अनुरोध',
  bannerRetry: 'फिर से प्रयास करें',
  bannerNone: 'कुछ भी अटका नहीं है।',
};

export const retentionHindi: ConsoleCatalogue['retention'] = {
  mediaLonger:
    'media_retention_days, retention_days से लंबा नहीं हो सकता: सेल्फ़ी और वीडियो अधिक से अधिक दस्तावेज़ों के साथ हटाए जाते हैं',
  filesDeleted:
    'इस अनुरोध के दस्तावेज़ संगठन की प्रतिधारण अवधि समाप्त होने पर हटा दिए गए; इसका ऑडिट ट्रेल और दस्तावेज़ों का SHA-256 रखा गया है।',
};

export const signersHindi: ConsoleCatalogue['signers'] = {
  notAnAddress: 'identifier एक ईमेल पता या भारतीय मोबाइल नंबर होना चाहिए',
  noRecords: 'इस संगठन के पास %{identifier} के बारे में कुछ नहीं है।',
  kept: 'रखा गया: हस्ताक्षरकर्ता का नाम और ईमेल, हस्ताक्षरित दस्तावेज़ और ऑडिट ट्रेल, जो हस्ताक्षरों के लिए आवश्यक हैं।',
};
