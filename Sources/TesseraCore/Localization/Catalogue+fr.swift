/// The translations into `fr` of the login pages' and mails' texts (``TextCatalogue``): an English line, then
/// its translation after `= `. Keep every `{placeholder}` of the English line; `\n` is a line break.
enum CatalogueFR {
    static let text = #"""
        a moment
        = un instant

        1 second
        = 1 seconde

        {count} seconds
        = {count} secondes

        1 minute
        = 1 minute

        {count} minutes
        = {count} minutes

        1 hour
        = 1 heure

        {count} hours
        = {count} heures

        Sign in
        = Connexion

        {client} asks you to sign in with your {realm} account.
        = {client} vous demande de vous connecter avec votre compte {realm}.

        E-mail address
        = Adresse e-mail

        Password
        = Mot de passe

        Forgot your password?
        = Mot de passe oublié ?

        Reset your password
        = Réinitialiser votre mot de passe

        Enter the e-mail address of your account. We will send it a link to choose a new password.
        = Saisissez l’adresse e-mail de votre compte. Nous y enverrons un lien pour choisir un nouveau mot de passe.

        Send the link
        = Envoyer le lien

        Check your e-mail
        = Consultez vos e-mails

        If {email} belongs to an account, we have sent it a link to choose a new password. The link works once, for one hour.
        = Si {email} correspond à un compte, nous y avons envoyé un lien pour choisir un nouveau mot de passe. Le lien ne fonctionne qu’une fois, pendant une heure.

        Back to sign-in
        = Retour à la connexion

        Confirm it's you
        = Confirmez votre identité

        Choose how to confirm it's you
        = Choisissez comment confirmer votre identité

        Continue
        = Continuer

        Enter your code
        = Saisissez votre code

        Enter your verification code.
        = Saisissez votre code de vérification.

        Use another method
        = Utiliser une autre méthode

        Set up a second factor
        = Configurer un second facteur

        Your account must be protected with a second factor. Set one up to continue.
        = Votre compte doit être protégé par un second facteur. Configurez-en un pour continuer.

        No second factor can be set up here. Contact your administrator.
        = Aucun second facteur ne peut être configuré ici. Contactez votre administrateur.

        QR code to scan
        = QR code à scanner

        Or type in this key:
        = Ou saisissez cette clé :

        Set up your second factor
        = Configurez votre second facteur

        Verification code
        = Code de vérification

        Verify
        = Vérifier

        Send a new code
        = Envoyer un nouveau code

        Second factor
        = Second facteur

        Choose a new password
        = Choisissez un nouveau mot de passe

        New password
        = Nouveau mot de passe

        8 characters or more.
        = 8 caractères ou plus.

        Change my password
        = Changer mon mot de passe

        Password changed
        = Mot de passe modifié

        The password of {email} has been changed, and every device signed in to the account was signed out. Return to the app and sign in with your new password.
        = Le mot de passe de {email} a été modifié et tous les appareils connectés au compte ont été déconnectés. Retournez dans l’application et connectez-vous avec votre nouveau mot de passe.

        Enter a new password.
        = Saisissez un nouveau mot de passe.

        Choose a password of 8 to 4096 characters.
        = Choisissez un mot de passe de 8 à 4096 caractères.

        Link expired
        = Lien expiré

        This link has expired. Ask for a new one.
        = Ce lien a expiré. Demandez-en un nouveau.

        Link not valid
        = Lien non valide

        This link is not valid or has already been used. Ask for a new one.
        = Ce lien n’est pas valide ou a déjà été utilisé. Demandez-en un nouveau.

        This password-reset link is incomplete.
        = Ce lien de réinitialisation est incomplet.

        The reset code is missing.
        = Le code de réinitialisation est manquant.

        This form was not sent from this page. Open the link of the mail again.
        = Ce formulaire n’a pas été envoyé depuis cette page. Rouvrez le lien de l’e-mail.

        Enter your e-mail address.
        = Saisissez votre adresse e-mail.

        Enter a valid e-mail address.
        = Saisissez une adresse e-mail valide.

        Enter your password.
        = Saisissez votre mot de passe.

        Enter the code.
        = Saisissez le code.

        Enter your {label}.
        = Renseignez ce champ : {label}.

        Choose a method.
        = Choisissez une méthode.

        Choose a method first.
        = Choisissez d’abord une méthode.

        Choose one of the methods.
        = Choisissez l’une des méthodes.

        No code was sent yet. Send a new code.
        = Aucun code n’a encore été envoyé. Envoyez un nouveau code.

        This page could not check your browser. Allow its script to run, then try again.
        = Cette page n’a pas pu vérifier votre navigateur. Autorisez son script, puis réessayez.

        The e-mail address or the password is not correct.
        = L’adresse e-mail ou le mot de passe est incorrect.

        Too many attempts. Try again in {wait}.
        = Trop de tentatives. Réessayez dans {wait}.

        Too many codes were sent. Try again in {wait}.
        = Trop de codes ont été envoyés. Réessayez dans {wait}.

        The code is not correct.
        = Le code est incorrect.

        This code has expired or was replaced. Send a new code.
        = Ce code a expiré ou a été remplacé. Envoyez un nouveau code.

        This account has been disabled.
        = Ce compte a été désactivé.

        SMS cannot be sent to this country or region.
        = Les SMS ne peuvent pas être envoyés vers ce pays ou cette région.

        Enter the number in international format, for example +15555550100.
        = Saisissez le numéro au format international, par exemple +15555550100.

        This is already one of your second factors.
        = C’est déjà l’un de vos seconds facteurs.

        Check the e-mail address and try again.
        = Vérifiez l’adresse e-mail et réessayez.

        Verify your e-mail address before you set up a second factor: open the link we sent you, then sign in again.
        = Vérifiez votre adresse e-mail avant de configurer un second facteur : ouvrez le lien envoyé, puis reconnectez-vous.

        You have the most second factors an account may have.
        = Vous avez déjà le nombre maximal de seconds facteurs.

        This method is not available. Choose another one.
        = Cette méthode n’est pas disponible. Choisissez-en une autre.

        SMS cannot be sent to this number from this server.
        = Les SMS ne peuvent pas être envoyés vers ce numéro depuis ce serveur.

        The code could not be sent. Try again.
        = Le code n’a pas pu être envoyé. Réessayez.

        This method is unavailable right now. Try again or choose another one.
        = Cette méthode est momentanément indisponible. Réessayez ou choisissez-en une autre.

        Something went wrong. Try again.
        = Une erreur s’est produite. Réessayez.

        Your sign-in took too long or was withdrawn. Sign in again.
        = Votre connexion a pris trop de temps ou a été annulée. Reconnectez-vous.

        Request refused
        = Requête refusée

        This form was not sent from this sign-in page. Return to the app and start again.
        = Ce formulaire n’a pas été envoyé depuis cette page de connexion. Retournez dans l’application et recommencez.

        Sign-in ended
        = Connexion terminée

        Try again later
        = Réessayez plus tard

        The sign-in service is unavailable.
        = Le service de connexion est indisponible.

        This sign-in link is incomplete. Return to the app and start again.
        = Ce lien de connexion est incomplet. Retournez dans l’application et recommencez.

        This sign-in is not known or has ended. Return to the app and start again.
        = Cette connexion est inconnue ou terminée. Retournez dans l’application et recommencez.

        This sign-in is already complete. Return to the app.
        = Cette connexion est déjà terminée. Retournez dans l’application.

        This sign-in has expired. Return to the app and start again.
        = Cette connexion a expiré. Retournez dans l’application et recommencez.

        This sign-in has ended. Return to the app and start again.
        = Cette connexion est terminée. Retournez dans l’application et recommencez.

        This sign-in is already complete or has expired. Return to the app.
        = Cette connexion est déjà terminée ou a expiré. Retournez dans l’application.

        Sign-in not possible here
        = Connexion impossible ici

        Your second factor cannot be used on this page. Sign in with the app instead.
        = Votre second facteur ne peut pas être utilisé sur cette page. Connectez-vous plutôt avec l’application.

        Request not valid
        = Requête non valide

        The form could not be read.
        = Le formulaire n’a pas pu être lu.

        Sign-in disabled
        = Connexion désactivée

        Sign-in is disabled here.
        = La connexion est désactivée ici.

        Too many sign-ins
        = Trop de connexions

        Too many sign-ins were started from your network. Try again in {wait}.
        = Trop de connexions ont été lancées depuis votre réseau. Réessayez dans {wait}.

        Sign-in request not valid
        = Demande de connexion non valide

        {detail} The application that sent you here is misconfigured; no sign-in can take place.
        = {detail} L’application qui vous a envoyé ici est mal configurée ; aucune connexion n’est possible.

        Sign-out failed
        = Échec de la déconnexion

        The request could not be read.
        = La requête n’a pas pu être lue.

        The application sent an ID token this service did not issue.
        = L’application a envoyé un jeton d’identité que ce service n’a pas émis.

        The application named another client than the one its ID token was issued to.
        = L’application a indiqué un autre client que celui à qui son jeton d’identité a été émis.

        The application is not registered here.
        = Cette application n’est pas enregistrée ici.

        The application must say who it is (client_id or id_token_hint) to be sent back.
        = Pour être renvoyée, l’application doit s’identifier (client_id ou id_token_hint).

        The application asked to be sent back to an address it did not register.
        = L’application a demandé un renvoi vers une adresse qu’elle n’a pas enregistrée.

        Signed out
        = Déconnecté

        You are signed out. You can close this page.
        = Vous êtes déconnecté. Vous pouvez fermer cette page.

        Sign out?
        = Se déconnecter ?

        An application
        = Une application

        {client} asks to sign you out of this browser.
        = {client} demande à vous déconnecter de ce navigateur.

        Sign out
        = Se déconnecter

        Sign in with a phone number
        = Se connecter avec un numéro de téléphone

        +1 555 555 0100
        = +33 6 12 34 56 78

        Sign in with your phone
        = Connexion par téléphone

        We will send a code by SMS to this number.
        = Nous enverrons un code par SMS à ce numéro.

        Send the code
        = Envoyer le code

        Use e-mail and password
        = Utiliser l’e-mail et le mot de passe

        Use another number
        = Utiliser un autre numéro

        Enter your phone number.
        = Saisissez votre numéro de téléphone.

        This number protects an account as its second factor. Sign in with that account's e-mail address and password.
        = Ce numéro protège un compte comme second facteur. Connectez-vous avec l’adresse e-mail et le mot de passe de ce compte.

        Authenticator app
        = Application d’authentification

        Use an authenticator app
        = Utiliser une application d’authentification

        Set up your authenticator app
        = Configurer votre application d’authentification

        Enter the 6-digit code your authenticator app shows.
        = Saisissez le code à 6 chiffres affiché par votre application d’authentification.

        Scan the QR code with your authenticator app, or type in the key, then enter the 6-digit code the app shows.
        = Scannez le QR code avec votre application d’authentification ou saisissez la clé, puis entrez le code à 6 chiffres affiché.

        Text message (SMS)
        = SMS

        Send a code by SMS
        = Envoyer un code par SMS

        Phone number
        = Numéro de téléphone

        In international format, for example +15555550100.
        = Au format international, par exemple +15555550100.

        Confirm your phone number
        = Confirmez votre numéro de téléphone

        Enter the 6-digit code we sent by SMS to {phoneNumber}.
        = Saisissez le code à 6 chiffres envoyé par SMS au {phoneNumber}.

        SMS to {phoneInfo}
        = SMS au {phoneInfo}

        Enter the 6-digit code we sent by SMS to {phoneInfo}.
        = Saisissez le code à 6 chiffres envoyé par SMS au {phoneInfo}.

        Recovery code
        = Code de récupération

        Make recovery codes
        = Créer des codes de récupération

        Save your recovery codes
        = Enregistrez vos codes de récupération

        Write these codes down or print them, and keep them somewhere safe: each works once, if you lose your other second factor. Then enter one of them to confirm.
        = Notez ou imprimez ces codes et gardez-les en lieu sûr : chacun fonctionne une fois, si vous perdez votre autre second facteur. Saisissez ensuite l’un d’eux pour confirmer.

        Enter one of your recovery codes. Each code works once.
        = Saisissez l’un de vos codes de récupération. Chaque code ne fonctionne qu’une fois.

        Verify your e-mail address
        = Vérifiez votre adresse e-mail

        Follow this link to verify your e-mail address:\n\n{link}\n\nIf you did not ask for this, ignore this message.
        = Suivez ce lien pour vérifier votre adresse e-mail :\n\n{link}\n\nSi vous n’avez rien demandé, ignorez ce message.

        Follow this link to choose a new password (it works for one hour, once):\n\n{link}\n\nIf you did not ask for this, ignore this message: your password stays as it is.
        = Suivez ce lien pour choisir un nouveau mot de passe (il fonctionne une fois, pendant une heure) :\n\n{link}\n\nSi vous n’avez rien demandé, ignorez ce message : votre mot de passe reste inchangé.
        """#
}
