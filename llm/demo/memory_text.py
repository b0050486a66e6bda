"""Word banks of the demo memory answers (``llm.demo.memories``): places, objects,
events, people, spoken lines, thoughts, the body's responses, sensations and the days
after, per setting and age group.

The banks are large and each memory draws a few items from many of them, so two
memories share few content words and the audit's TF-IDF duplicate check (criterion 4)
sees them as different scenes. Nothing here looks back from a later time: no hindsight
phrase, no adult appraisal, no clinical vocabulary (audit criteria 1, 2 and 6). Pure
data; no Django.
"""

from __future__ import annotations


def bank(text: str) -> tuple[str, ...]:
    """Items separated by "|" (line breaks inside an item are spaces)."""
    return tuple(" ".join(item.split()) for item in text.split("|") if item.strip())


# --- Settings: where it happens, what is at hand, what happens -------------------------
# "heavy" events serve tiers A and B, "light" ones tiers C and D. An event is a clause in
# the present tense; a place carries its own preposition.

SETTINGS: dict[str, dict[str, tuple[str, ...]]] = {
    "school": {
        "places": bank("""in a classroom with crooked blinds | outside the head teacher's office |
            in a noisy canteen at lunchtime | by a fence at the far end of the playground |
            in a library corner full of beanbags | in a changing room after swimming |
            on the steps of the science block | in a portable classroom that smells of
            carpet | at a bus shelter opposite the school gates | in a music room with
            mismatched chairs"""),
        "objects": bank("""pencil case | exercise book | protractor | glue stick | locker key |
            lunch tray | sports bag | timetable | calculator | felt-tip | ruler | eraser |
            hymn sheet | report card | permission slip | water bottle | blazer | gym shoe |
            library card | compass | highlighter | planner | textbook | whistle | bib |
            lanyard | mouthguard | crayon tin | stopwatch"""),
        "heavy": bank("""the marks are read aloud and mine comes last | someone posts a photo
            of me in the group chat and everyone laughs | I am sent out in front of the
            class | my best friend sits with another group and does not look up | a teacher
            finds a note I wrote and reads it out | I miss the penalty and the match ends |
            my bag is tipped out on the floor by older kids | I am told I will have to repeat
            a year"""),
        "light": bank("""a supply teacher mixes up everyone's names | the fire drill starts
            halfway through a test | my drawing gets pinned up by the door | a sports-day
            relay needs one more runner | rain cancels the trip to the museum | a new kid
            is put at my table | the projector breaks and lessons turn into quizzes |
            lunch is pizza for once"""),
        "doing": bank("""copying dates from a board | sharpening pencils one after another |
            queueing for chips | pulling on a damp sock | waiting for my name at
            registration | doodling spirals in a margin | swapping stickers under a desk |
            practising spellings under my breath"""),
    },
    "workplace": {
        "places": bank("""in a back office beside a humming printer | in a glass meeting room
            on the fourth floor | on a loading dock behind a warehouse | at a shared desk by
            the window | in a staff kitchen with a dripping tap | in a site cabin at the edge
            of a car park | behind a shop counter on a Saturday | in a call-centre booth
            with a sticky headset | on a hotel service corridor | in a lab with bleeping
            fridges"""),
        "objects": bank("""stapler | lanyard | clipboard | invoice | spreadsheet printout |
            hi-vis vest | timesheet | headset | swipe card | delivery note | coffee cup |
            laptop charger | sticky note | pallet jack | till roll | rota | name badge |
            pipette | barcode scanner | filing tray | hard hat | extension lead | tape gun |
            business card | whiteboard marker | keyring | toolbox | receipt spike"""),
        "heavy": bank("""my report is picked apart in front of everyone | a manager tells me my
            contract will not be renewed | a mistake of mine costs a client order | I am
            blamed for a shortage in the till | a colleague takes credit for my plan | I am
            let go on a Friday afternoon | a customer shouts at me while my boss watches |
            a deadline moves up by two days with no warning"""),
        "light": bank("""the coffee machine breaks before the morning meeting | a new starter
            shadows me for a day | someone brings in birthday cake | my login stops working
            | a courier arrives with the wrong boxes | the printer jams on a long contract
            | a quiet shift leaves time to tidy shelves | my idea is tried out on a small
            scale"""),
        "doing": bank("""stacking boxes onto a trolley | answering a queue of emails |
            counting coins into bags | labelling samples | filling in a timesheet |
            restocking a fridge | checking a delivery against a list | wiping down a
            counter"""),
    },
    "interpersonal": {
        "places": bank("""in my cousin's crowded kitchen | on a bench outside a corner shop |
            in a hallway of our flat | at a café table by a steamed-up window | in a back seat
            of my aunt's car | on a stairwell between two floors | on a sofa at a friend's
            house | at a birthday party in someone's garden | on a doorstep after dark |
            on a swing in an empty park"""),
        "objects": bank("""phone | friendship bracelet | front-door key | birthday card | scarf |
            photo | jacket | hoodie | bag of crisps | charger | gift box | paper cup |
            bottle of squash | board game | tissue | cushion | video game controller |
            takeaway menu | hair tie | umbrella | postcard | bunch of flowers | mug of tea"""),
        "heavy": bank("""a friend tells everyone a secret I trusted them with | my parents argue
            and a door slams | someone I count on walks out mid-sentence | I find out I was
            left off an invitation | a cousin says I am a burden | my brother is packing to
            leave home | I am asked to choose between two friends | an old friend does not
            recognise me"""),
        "light": bank("""a friend cancels at a last minute | we make up after a long silence |
            someone asks to borrow money again | a neighbour knocks with a plate of food |
            an old friend texts out of nowhere | my sister borrows a top without asking |
            we disagree about which film to watch | a cousin teaches me a card trick"""),
        "doing": bank("""peeling a satsuma | untangling a headphone cable | scrolling without
            reading | passing round biscuits | folding a napkin into smaller squares |
            plaiting a friend's hair | refilling glasses | drawing circles in spilt
            sugar"""),
    },
    "health": {
        "places": bank("""in a waiting room of a clinic | on a narrow bed in an emergency ward |
            in a pharmacy queue | on a bathroom floor at home | in a physiotherapist's room
            with a paper sheet | in a hospital corridor with scuffed walls | in a dentist's
            chair | at a blood-test hatch | in a school nurse's room | on my bed with a
            hot-water bottle"""),
        "objects": bank("""wristband | paper gown | inhaler | thermometer | blister pack |
            appointment letter | plaster | crutch | sling | pill organiser | drip stand |
            clipboard form | tissue box | ice pack | sick bowl | pulse monitor | cotton ball
            | hospital blanket | plastic cup | cough syrup | eye patch | heat pad"""),
        "heavy": bank("""a test result comes back wrong | a sudden pain folds me in half on
            the stairs | we wait for someone to come out of surgery | I am told I cannot
            play for the rest of the season | a nurse cannot find a vein and tries again |
            my grandfather does not know my name | I faint in a queue | a doctor asks
            my mother to step outside"""),
        "light": bank("""a doctor says it is nothing serious | I get a cast signed by
            everybody | a cold keeps me home for two days | a filling takes longer than
            promised | I have to swallow a huge tablet | a scan shows a bone healing well |
            my glasses are ready to collect | a flu jab is over before I notice"""),
        "doing": bank("""filling in a form with a chewed pen | counting ceiling tiles |
            holding a cold compress | reading a leaflet about sleep | rolling up my sleeve |
            sipping flat lemonade | watching a drip fall | tracing a stain on a
            blanket"""),
    },
    "creative": {
        "places": bank("""in an art room with paint-stiff brushes | in a rehearsal space above
            a garage | at my desk under a pile of sketches | in a community hall before a
            show | in a cramped practice room with a broken metronome | at a kitchen table
            spread with cardboard | backstage behind a velvet curtain | in a pottery shed
            | in a church hall with a piano | in a darkroom with a red bulb"""),
        "objects": bank("""paintbrush | sketchbook | guitar pick | clay lump | tube of ochre |
            violin bow | script | microphone | glue gun | charcoal stick | lino cutter |
            tripod | costume | sheet music | tin of beads | amplifier | easel | camera |
            drumstick | papier-mâché mask | spool of thread | notebook | palette knife"""),
        "heavy": bank("""a piece I worked on for weeks tears in half | I freeze in front of
            an audience | a judge calls my entry careless | my band plays without me |
            a teacher says I have no ear for music | a painting is thrown out by mistake |
            my solo is given to somebody else | I am laughed at during a reading"""),
        "light": bank("""a stranger stops to look at what I made | an idea finally works on
            a page | a string snaps halfway through practice | a kiln opens and a bowl
            survives | my poem is read out | a rehearsal runs late and pizza arrives |
            I mix a colour I have never seen | a sketch gets a sticker of approval"""),
        "doing": bank("""tuning a string | wedging clay | smudging charcoal with a thumb |
            mouthing lines | sanding a frame | threading a needle | cleaning brushes in
            a jar | counting beats under my breath"""),
    },
    "daily life": {
        "places": bank("""at a bus stop in drizzle | in a supermarket aisle with a flickering
            light | on our balcony at dusk | in a laundrette full of warm air | on a canal
            path | in our kitchen while rice boils over | at a ticket machine in a station
            | in a queue at a post office | on a ferry deck | in a lift that stops between
            floors"""),
        "objects": bank("""shopping list | bus pass | carrier bag | umbrella | house key |
            bin bag | library book | bike lock | laundry basket | tin opener | parcel |
            torch | raincoat | fruit bowl | recycling box | loaf of bread | doormat |
            wallet | train ticket | plant pot | tea towel | coin purse | watering can"""),
        "heavy": bank("""a bus pulls away with my bag still on it | someone tries to snatch my
            phone | our flat floods overnight | a dog runs out in front of a car | I am
            locked out in freezing rain | a letter says we have to move | my bike is stolen
            from outside the shop | a stranger follows me for two streets"""),
        "light": bank("""a bus does not come | I lose my keys on the way home | a washing
            machine floods a floor | a neighbour's cat walks in and sits down | a power cut
            starts at dinner | a parcel arrives for a neighbour | snow starts on a
            weekday | a shop gives me too much change"""),
        "doing": bank("""sorting socks into pairs | reading a timetable | peeling potatoes
            | carrying shopping up stairs | waiting for a kettle | checking my pockets |
            pegging out washing | watering tomato plants"""),
    },
}

# --- People and their words, per age group ---------------------------------------------

NAMES = bank("""Ada | Bilal | Cora | Dario | Elif | Femi | Greta | Hugo | Isla | Jonas | Kemi |
    Leon | Maya | Nadia | Oskar | Pia | Quentin | Rosa | Sami | Tariq | Uma | Vik | Wren |
    Xavi | Yara | Zeno | Anouk | Bruno | Chidi | Dilys | Emre | Fenna | Gus | Hana | Ivo |
    Jude | Kasia | Lior | Mabel | Nico | Odette | Pavel | Ravi | Saoirse | Theo | Ulla |
    Vera | Wiktor | Yusuf | Zainab""")
PEOPLE = {
    "child": bank("""my mother | my father | my teacher | my best friend | my big sister |
        a boy from my class | my grandmother | a dinner lady | my little brother | my uncle
        | a girl next door | my swimming coach | a classmate | my stepmother"""),
    "teen": bank("""my coach | my friend | my younger brother | a girl from the year above |
        my form tutor | my stepfather | a neighbour's son | my lab partner | my mother |
        my older cousin | my bandmate | a boy from the bus | my father | my aunt"""),
    "adult": bank("""my manager | a colleague | my partner | my landlord | an old friend |
        a nurse | my sister-in-law | a client | my brother | a neighbour | my flatmate |
        my mother | a team lead | my cousin"""),
}
# Others' lines: tense ones for tiers A and B, easy ones for tiers C and D.
SAID = {
    ("child", "tense"): bank("""Who did this? | Why are you crying? | Stop that right now. |
        You're not allowed in here. | Look what you've done. | Nobody wants you on their
        team. | Go and wait outside. | Tell me where you put it. | You've ruined it! |
        Don't make me ask twice."""),
    ("child", "easy"): bank("""Are you all right, sweetheart? | Come here, let me see. | You
        can sit with us if you want. | Do you want a biscuit? | Guess what I found! |
        Hold my hand across here. | Shall we race to the gate? | Is that one yours? |
        You did that all by yourself? | Want to see a secret?"""),
    ("teen", "tense"): bank("""You're overreacting, you know that? | Did you really mean
        that? | Just tell me the truth. | Everyone's waiting for you. | Why do you always
        do this? | I'm not angry, I'm disappointed. | Give me your phone. | You think
        you're so clever. | Nobody asked you. | Get out of my room."""),
    ("teen", "easy"): bank("""Can we talk about it later? | Want to split a pizza? | You
        coming on Saturday? | That's actually not bad. | Budge up, there's room. | Did you
        see his face? | Lend me a pen? | You look tired, go to bed. | Play it again from
        the chorus. | Who's got a charger?"""),
    ("adult", "tense"): bank("""I need an answer by the end of the day. | We can't keep
        doing it this way. | Who signed this off? | I trusted you with one job. | Are you
        even listening? | This is your last warning. | You could have called. | Don't
        walk away from me. | I'm done covering for you. | Sit down, please."""),
    ("adult", "easy"): bank("""Are you sure you're okay with this? | I thought you'd be
        pleased. | Can I be honest with you? | Fancy a coffee after? | Take a day if
        you need it. | Nice work on Tuesday. | Mind if I join you? | Shall we just order
        in? | You've got flour on your nose. | Tell me how it went."""),
}
REPLIES = {
    "child": bank("""I'm fine. | It wasn't me, I promise. | It doesn't hurt that much. |
        Really? | I don't know. | Can I go home now? | I was only looking. | Sorry, sorry.
        | It's mine, give it back. | Okay. | Yes please. | Can Mum come?"""),
    "teen": bank("""Maybe. I don't care. | We always say later. | I don't know what I
        meant. | Fine. I was scared. | Then let them wait a minute. | Whatever. | Can you
        just leave it? | I said I'm sorry. | Why does it matter to you? | Yeah, okay. |
        Thanks, I guess. | Seriously?"""),
    "adult": bank("""You'll have it by five. | No, but I'll manage. | I am. I'm also tired.
        | Please. | I know. So what do we change? | Give me a minute. | That isn't fair
        and you know it. | Fine, let's talk. | I'd like that. | Can we do this tomorrow?
        | Thank you, really. | I hear you."""),
}
TAGS = bank("""says | asks | mutters | snaps | whispers | calls | tells me | repeats | adds |
    says quietly | says, too loudly | says without looking up""")
MY_TAGS = bank("""I say | I answer | I manage | I mumble | I tell them | I reply, too fast |
    I say to my shoes | I get out""")

# --- Inside: thoughts and the body, by age group and by intensity -----------------------

# Thoughts in a hard moment (tiers A and B).
THOUGHTS = {
    "child": bank("""I want to go home right now. | Maybe if I stay very still nobody will
        see me. | Why is everyone looking? | I wish Mum was here. | I did something wrong
        but I don't know what. | It is not fair, it is just not fair. | I count my fingers
        under a table to stay calm. | If I hold my breath to ten it will stop. | I want
        a hug and I don't want anyone to touch me. | Maybe they will forget by tomorrow.
        | I think about my bed and my blue blanket. | Please don't let me cry. | I am
        going to be good from now on, really good. | It's my fault, I think, it's all my
        fault."""),
    "teen": bank("""Everyone can tell, I think, everyone. | I hate caring this much. |
        Some of me wants to shout and some of me wants to vanish. | I keep replaying my
        last sentence and it sounds worse each time. | Why is it always me fixing things?
        | Act normal, whatever normal is. | I am not going to cry here. Not here. | They
        probably think I'm a joke. | If I leave now it looks worse. | Nobody ever asks
        what I want. | Maybe this is fine, maybe I'm making it big. | I could text Mum,
        but then she'd know. | Why did I even come? | Breathe, just breathe."""),
    "adult": bank("""I run through my options and none is good. | I notice an old urge to
        smooth everything over. | I am angry, and under it I am scared. | Answer what was
        asked, I tell myself, nothing more. | Am I being unreasonable? No. | A list of
        unfinished jobs scrolls past inside my head. | I want to be fair to them and to
        myself. | Rent, bills, a dentist appointment: I do sums in my head. | Don't
        apologise for something you didn't do. | This matters more than I expected. |
        Keep your voice level. | I should have eaten lunch. | Whose side am I on here?
        | Tomorrow I will deal with it, not tonight."""),
}
# Thoughts on an easier day (tiers C and D).
EASY_THOUGHTS = {
    "child": bank("""I hope there is pudding later. | Maybe I can stay up late tonight. | I
        wonder if dogs know when it's Saturday. | I am the fastest, I think, probably. |
        When I grow big I want a red bike. | I want to tell Gran about this. | Nobody
        else noticed, and that is a secret just for me. | I like it when it's like
        this. | Is it nearly time to go? | I wish I had a sticker for this."""),
    "teen": bank("""This is actually kind of nice, weirdly. | Don't make it awkward, I tell
        myself. | I should text Priya about this. | Maybe I'm better at this than I
        thought. | It's not a big deal, it's really not. | Why do I feel like laughing?
        | I want chips so badly. | Is everyone else this tired? | Okay, that was funny.
        | I could get used to this."""),
    "adult": bank("""It is a small thing, and I let it be small. | I should call my
        mother back tonight. | There is still time to salvage an evening. | Funny how a
        day turns. | I am allowed to enjoy this. | Nobody needs anything from me for an
        hour. | I make a mental note to buy milk. | Maybe a walk after this. | I
        wonder what Ines is doing now. | This is fine. Really, this is fine."""),
}
BODY = {
    "high": bank("""A heartbeat thuds so hard I feel it in my throat. | Both hands shake and I
        press them flat against both thighs. | A hot, tight pressure builds behind both
        eyes. | A lurch goes through me, as if a floor has tilted. | I cannot get a full
        breath; each one stops halfway. | Sweat trickles down between both shoulder
        blades. | Both knees go soft and I grab a railing. | A high ringing fills both
        ears. | A coppery taste floods in, like sucking a coin. | Gooseflesh prickles from
        scalp to wrists. | Nausea rises and I swallow hard. | Teeth chattering, though
        nobody else seems cold. | Everything narrows to a tunnel, edges going dark. | A
        cramp grips low in a belly that feels hollow. | Blood pounds in both temples. |
        Fingers go numb and stupid, fumbling."""),
    "mid": bank("""Both shoulders creep up near both ears and I push them down. | Heat
        floods up my face and I study a floor tile. | A jaw ache tells me I have been
        clenching. | Fingers keep drumming on one knee. | A dry mouth; I swallow twice. |
        A knot sits under the ribs. | A crick stiffens up one side of a neck. | I bite an
        inside cheek. | One foot jiggles and won't stop. | A flush creeps past a collar. |
        A headache starts, small, above one eyebrow. | I keep rubbing a thumbnail along a
        knuckle. | Butterflies flutter, then settle, then flutter again."""),
    "low": bank("""Both shoulders loosen a little. | I yawn and stretch both arms. | Toes
        warm for once, inside thick socks. | Breathing slows and evens out. | Both legs
        feel heavy in a pleasant way. | A smile tugs before I decide to smile. | A full,
        warm belly. | Eyelids drooping. | I hum without meaning to. | Both hands stop
        fidgeting. | A lazy, sleepy ease spreads through both arms. | Cheeks ache a bit
        from grinning. | Sun on one cheek, pleasantly hot."""),
}

# --- Around: sensations, light, small movements -----------------------------------------

SOUNDS = bank("""a radio somewhere plays a song I half know | a fridge clicks and starts to
    hum | rain taps unevenly on a roof | a chair scrapes behind me | traffic hisses past
    on a wet road | someone laughs too loudly next door | keys jingle in a passing pocket
    | heating pipes knock twice and go quiet | a dog barks two streets away | a baby
    starts wailing | a phone buzzes against a table | a door bangs shut upstairs | a kettle
    whistles | someone whistles a tune off-key | a trolley wheel squeaks | a window
    rattles in its frame | a tap drips into a steel sink | a lift pings | gulls shriek over
    a car park | a hand dryer roars | a football thuds against a wall | pigeons clatter off
    a ledge | a siren rises and fades | a vacuum cleaner drones | cutlery clinks in a
    drawer | a bus sighs as its doors open | wind moans through a gap | a church bell
    strikes four | a television mumbles through a wall | a zip rips open | a motorbike
    revs | sparrows squabble in a hedge | a tannoy crackles | footsteps slap on lino""")
SMELLS = bank("""wet coats and floor polish | burnt toast and coffee | chlorine and rubber
    | cut grass | oranges | dust and old paper | sharp cleaning fluid | fried onions |
    diesel | warm bread | bleach | lavender soap | damp dog | cigarette smoke | vinegar
    and chips | pencil shavings | marker pens | sun cream | mould | frying bacon |
    cinnamon | hot tarmac | mint chewing gum | boiled cabbage | perfume, too much of it
    | sawdust | rubber tyres | wood smoke | hand sanitiser | cold metal | talcum powder |
    spilt beer | fresh paint | sweaty trainers | jasmine | ironing""")
SMELL_FRAMES = bank("""The air smells of {}. | A whiff of {} drifts past. | I breathe in {}. |
    Somewhere close: {}. | Nose full of {}. | Someone has brought in {}. | A faint reek
    of {} hangs about. | Underneath everything, {}.""")
TOUCH_FRAMES = bank("""A {feel} {surface} against bare {part}. | I press both {part} against
    a {feel} {surface}. | Everything I touch feels {feel}, even a {surface}. | I lean on
    a {surface}, {feel} under both {part}. | {Feel}: that {surface}, when I rest both
    {part} on it.""")
SIGHTS = bank("""thin grey light shows every smear on a window | a plastic bag drifts across
    a yard and snags on a railing | a half-eaten apple browns on a sill | a clock above a
    door runs two minutes fast | yellow tape peels off a floor near my feet | a streetlamp
    flickers on though it's not dark yet | a coffee ring stains a sheet of paper | a pigeon
    walks circles near an open door | a poster curls away from its drawing pin | dust
    floats in a slant of sun | condensation runs down a pane in crooked lines | somebody
    has carved initials into a bench | a moth bumps against a strip light | a puddle holds
    a piece of sky | a calendar still shows last month | a crack runs across a ceiling
    like a river on a map | a red balloon is stuck against a ceiling | muddy prints
    cross a clean floor | a spider has built across a corner | a wasp crawls along a
    window frame | orange leaves pile against a kerb | a shopping trolley lies on its
    side | frost feathers a windscreen | a neon sign buzzes pink and blue""")
SURFACES = bank("""bench | railing | desk | floor | counter | doorframe | blanket | seat |
    windowpane | banister | wall | cushion | table top | step | handrail | mattress |
    worktop | sill | carpet | tiled floor""")
FEELS = bank("""gritty | cold | warm | sticky | smooth | damp | rough | dusty | greasy |
    ridged | clammy | velvety | splintery | chilly | crumbly | slick | bumpy | furry""")
HAND_PARTS = bank("palms | fingertips | knees | elbows | wrists | thumbs | forearms | heels")
ADJECTIVES = bank("""dented | chipped | faded | borrowed | crumpled | brand-new | lopsided |
    sticky | scratched | shiny | bent | soggy | tattered | spotless | squashed | frayed |
    cracked | warm | tiny | heavy | grubby | glittery | patched | rusty | wobbly | striped
    | lukewarm | rolled-up | half-empty | lost-looking""")
COLOURS = bank("""grey | mustard | faded green | navy | rust-red | pale blue | cream | white
    | brown | lilac | orange | black | teal | cherry | olive | pink | silver | tan""")
HANDLING = bank("""I turn a {} over and over. | I pick up a {} and put it down again. | I
    push a {} away with one finger. | I straighten a {} so it sits square. | I hug a {}
    against my chest. | I tap a {} twice, for luck. | I wipe a {} on a sleeve. | I
    squeeze a {} hard, knuckles whitening. | I slide a {} into a pocket. | I stare at
    a {} as if it could help. | I fiddle with a {}. | I balance a {} on one knee.""")
PLACING = bank("""A {} {} lies on a chair nearby. | Somebody's {} {} sits abandoned by a
    door. | A {} {} balances on a stack of books. | Under a table I spot a {} {}. | A
    {} {} hangs from a hook. | Next to me there is a {} {}.""")
TIMES = bank("""a wet Monday | a Tuesday morning | a Wednesday just after lunch | a
    Thursday afternoon | a Friday evening | a Saturday | a Sunday morning | a half-term
    day | a bank-holiday afternoon | a windy evening""")

# --- After: the same day to a week later (App. L.3 allowed time markers) ---------------

WHEN_AFTER = bank("""That evening | That night | Before bed | The next day | The following
    day | A few days later""")
AFTER = bank("""I lie awake listening to the pipes | I write two lines about it on a receipt
    and throw it away | I keep checking my phone for a message that does not come | my
    legs still feel shaky on the stairs | I walk past the same spot and my chest tightens
    | I eat standing up, not hungry, just busy with my hands | I tell one person about it,
    quickly, and change the subject | I tidy my room for an hour without deciding to |
    {who} knocks on my door and we sit without talking | I go for a run and turn back
    early | I cannot finish my dinner | I laugh at something on television and feel
    guilty | I hear {who} on the phone, saying my name | I sleep for eleven hours | I
    wear my favourite jumper, like armour | I draw the scene in the back of a notebook
    | {who} leaves a biscuit on my pillow | I take the long way round to avoid the place
    | I dream about stairs that go nowhere | I practise what I should have said, out
    loud, in the shower | I bump into {who} and we both pretend nothing happened | I ask
    Gran how her knee is and listen properly | I find a bruise I don't remember getting
    | my appetite comes back all at once | {who} sends a photo of a dog, nothing else |
    I clean my shoes twice | I catch myself smiling on the bus | I hide the {obj} in a
    drawer | I give the {obj} away | I put the {obj} back where it belongs""")

# --- Metadata (App. L.3): triggers, conclusions, policies -------------------------------

TRIGGERS = {
    "school": bank("""a teacher's red pen | a school bell | being picked last | lunch trays
        | a register being called | a whistle | chalk dust | a report envelope"""),
    "workplace": bank("""printer noise | a sudden deadline | a raised voice | an email flag
        | a meeting invite | a till beeping | a manager's office door | a timesheet"""),
    "interpersonal": bank("""a cancelled plan | a long silence | a friend's tone | an
        unanswered text | a slammed door | a group chat | a birthday card | laughter
        behind me"""),
    "health": bank("""disinfectant smell | a waiting room | a doctor's pause | sudden pain
        | a paper gown | a hospital wristband | a pill packet | a blood-pressure cuff"""),
    "creative": bank("""a blank page | stage lights | a broken string | wet paint | a
        judge's sheet | applause | a metronome | a ripped sketch"""),
    "daily life": bank("""rain at a bus stop | lost keys | a knock at the door | a flooded
        floor | a departing bus | a power cut | a brown envelope | a locked door"""),
}
CONCLUSIONS = bank("""Being seen failing feels worse than failing; fear of judgement shapes
    what is risked next. | Help offered without conditions is hard to accept when
    self-reliance has been the safe way. | Control over small things steadies the self
    when larger things slip out of reach. | Anger here protects a softer hurt about not
    being counted on. | Quiet competence earns a sense of worth that praise alone does
    not. | Closeness feels safest when it is chosen, not demanded. | Being believed
    matters more than being comforted. | A kind word from an unexpected person can
    outweigh a crowd's laughter.""")
POLICIES = bank("""When judged in public, go quiet first, then answer once the heat drops. |
    Prepare early for anything that can be checked by others. | Say yes to help only
    after a pause, and thank people twice. | Keep hands busy when feelings run high;
    decide after the task is done. | Name the problem plainly and offer one concrete fix.
    | Check in with the people involved the next day instead of waiting for them. | Leave
    a room before saying something that cannot be taken back. | Ask one trusted person
    before deciding alone.""")

# --- Beats: what others do in the scene, per setting ({who}: the other person) --------

BEATS = {
    "school": bank("""{who} slides a folded note across a desk. | {who} flicks an elastic band
        at a window. | A bell shrills and nobody moves. | Someone's chair tips back and
        crashes. | {who} rubs out a sum so hard a page tears. | Two boys swap football
        cards behind a bin. | A teaching assistant hands out worksheets, still warm. |
        {who} hums a jingle from an advert. | Chalk squeaks across a blackboard. | A
        girl at a window counts raindrops aloud. | {who} chews a pen lid flat. | Somebody
        drops a tray and cheers go up."""),
    "workplace": bank("""{who} scrolls through a spreadsheet, frowning. | A phone rings
        twice and stops. | Somebody microwaves fish again. | {who} taps a lanyard against
        a monitor. | A forklift beeps while reversing outside. | {who} signs a form without
        reading it. | Across an aisle, a printer spits out blank pages. | Two people argue
        softly about a parking space. | {who} pours cold coffee into a plant pot. |
        Someone's screen saver shows a beach in Crete. | A courier waits with a tablet,
        shifting from foot to foot. | {who} rolls up both sleeves."""),
    "interpersonal": bank("""{who} picks at a label on a bottle. | Somebody turns music up,
        then down. | {who} laughs at a message and hides a screen. | A toddler runs
        past wearing one welly. | {who} fills a kettle without asking anybody. | A
        cousin shuffles a deck of cards. | {who} pulls a hood over tangled hair. |
        Someone's dog noses through a recycling bag. | {who} sends a voice note,
        whispering. | Plates pile up beside a sink. | {who} kicks off both trainers.
        | A neighbour waves through a window."""),
    "health": bank("""{who} reads a leaflet about cholesterol upside down. | A porter
        wheels an empty bed past. | A nurse calls a surname twice. | {who} fills a paper
        cup at a water cooler. | A vending machine swallows somebody's coins. | {who}
        squeezes my wrist, gently. | A man in a dressing gown shuffles by, pushing a drip.
        | Somebody's pager bleeps. | {who} checks a watch, then a phone, then a watch.
        | A cleaner mops round our feet. | {who} unwraps a mint very slowly. | A
        monitor flashes green numbers."""),
    "creative": bank("""{who} tunes a bass, one peg at a time. | Somebody spills turpentine
        and swears. | {who} tapes a sketch to a wall, crooked. | A spotlight swings
        across empty seats. | {who} hums a harmony nobody asked for. | Glitter drifts
        off somebody's sleeve. | {who} counts us in: one, two, three, four. | A drummer
        twirls a stick and drops it. | {who} scrapes a palette clean. | A stage manager
        hisses for quiet. | {who} photographs a canvas from three angles. | Feedback
        howls from a speaker."""),
    "daily life": bank("""{who} counts out coins on a palm. | A toddler in a buggy shouts
        at pigeons. | Somebody's shopping bag splits and tins roll. | {who} checks a
        timetable for a third time. | A cyclist rings a bell, furious. | {who} shakes
        rain off an umbrella. | A queue shuffles forward one step. | A man sings along
        to his headphones. | {who} unlocks a door with a shoulder shove. | Steam fogs
        up a window. | {who} peels a banana in one long strip. | A delivery van blocks
        half a road."""),
}
MOVES = bank("""I pull a loose thread from a cuff. | I tuck both hands into my sleeves. | I
    count tiles on a floor. | I rub a smudge off a thumbnail. | I shift from one foot to
    another. | I zip a coat up to my chin, then down again. | I crack each knuckle in
    turn. | I press a thumbnail into a palm. | I wind a hair tie round two fingers. | I
    scuff a shoe against a skirting board. | I fold a receipt into a tiny square. | I
    read a sign over and over without taking it in. | I peel a plaster off and stick it
    back. | I trace circles on a knee with one finger. | I look for a clock and cannot
    find one. | I chew a strand of hair. | I stand up, then sit down again. | I check a
    pocket for nothing in particular.""")
